#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# Fixture for tests/e2e/selftest/run: two cases pass, then the script
# dies. tests/e2e/run must count it as failed and exit non-zero.
echo "ok - host: first case"
echo "ok - host: second case"
exit 1
