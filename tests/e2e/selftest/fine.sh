#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# Fixture for tests/e2e/selftest/run: a script that does everything right,
# its own cases and a relayed helper's. tests/e2e/run must report 3
# passed, 0 failed, and exit 0.
. "$(dirname "$0")/../lib.sh"

ok "first case"
relay "helper" sh -c 'echo "# a comment from the helper"; echo "ok - host: the helper'\''s case"'
# A cleared progress line on stderr, as xxhsum leaves one, just before
# the next result: still counted.
printf '\r%20s\r' '' >&2
[ "$PASSED" = 2 ] && ok "relayed cases are counted" ||
	fail "relayed cases are counted" "PASSED=$PASSED"
done_testing
