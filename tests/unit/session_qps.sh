#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole in-process session suite once per data op, the chunks striped
# over 3 QPs (RP_TEST_QPS; 3 so that no QP count divides the window of
# 4 most cases use); it fails when any run fails. Run from the top build
# directory, as make check does.
rc=0
for op in write read send; do
	echo "== RP_TEST_OP=$op RP_TEST_QPS=3"
	RP_TEST_QPS=3 RP_TEST_OP=$op tests/unit/test_session || rc=1
done
exit $rc
