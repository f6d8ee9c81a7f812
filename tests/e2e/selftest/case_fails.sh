#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# Fixture for tests/e2e/selftest/run: one case passes, one fails, and the
# script ends as planned (done_testing exits 1). tests/e2e/run must count
# exactly that: 1 passed, 1 failed, and exit non-zero.
. "$(dirname "$0")/../lib.sh"

ok "a passing case"
fail "a failing case" "as the fixture wants"
done_testing
