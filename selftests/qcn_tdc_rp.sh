#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The qcn_rp tc-testing cases (tc-testing/qcn_rp.json) by the kernel's tdc.py:
# every option set and shown back.  qcn_tdc_rp_reject.sh runs the bad
# values.  See qcn_tdc.sh.
exec "$(dirname "$0")/qcn_tdc.sh" "$(dirname "$0")/tc-testing/qcn_rp.json"
