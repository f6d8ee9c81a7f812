#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# Fixture for tests/e2e/selftest/run: two cases pass, then the script
# leaves with status 0 before its end (done_testing never runs).
# tests/e2e/run must count it as failed and exit non-zero.
. "$(dirname "$0")/../lib.sh"

ok "first case"
ok "second case"
exit 0
ok "a case never reached"
done_testing
