#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# Fixture for tests/e2e/selftest/run: a helper program (relayed, as
# hostile.sh relays hostile.py) reports one passing case and then exits 3
# without a "not ok": relay counts that as a failed case.
. "$(dirname "$0")/../lib.sh"

relay "helper" sh -c 'echo "ok - host: the helper'\''s case"; exit 3'
done_testing
