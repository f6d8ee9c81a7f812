#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# Fixture for tests/e2e/selftest/run: two cases pass and the plan is
# complete, then the script exits 1 (say, its cleanup failed). Only the
# exit status tells: tests/e2e/run must count it as failed.
echo "ok - host: first case"
echo "ok - host: second case"
echo "1..2"
exit 1
