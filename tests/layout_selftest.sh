#!/bin/sh
# SPDX-License-Identifier: MIT
# make check's run of `tests/layout.sh --selftest`: the layout checker
# must pass on a copy of the sources and fail on each planted violation.
exec "$(dirname "$0")/layout.sh" --selftest
