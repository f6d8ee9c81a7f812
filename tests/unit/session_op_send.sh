#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole in-process session suite once more, the data moving by
# --op send (RP_TEST_OP); it fails when any case fails. Run from the top
# build directory, as make check does.
RP_TEST_OP=send exec tests/unit/test_session
