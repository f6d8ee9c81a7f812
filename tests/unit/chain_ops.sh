#!/bin/sh
# SPDX-License-Identifier: MIT
# The chain suite (4 hops, sizes, trees, a hop dying at each phase) once
# more per other data op, --op read and --op send (RP_TEST_OP); it fails
# when any run fails. Run from the top build directory, as make check
# does.
rc=0
for op in read send; do
	echo "== RP_TEST_OP=$op"
	RP_TEST_OP=$op tests/unit/test_chain || rc=1
done
exit $rc
