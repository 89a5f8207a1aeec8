#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Entry point inside the test VM (tools/vm-run.sh boots it, loads modules).
exec make -s -C "$(dirname "$0")" run_tests
