#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The qcn_rp tc-testing rejections (tc-testing/qcn_rp_reject.json) by the
# kernel's tdc.py: every bad value refused with the qdisc unchanged.  See
# qcn_tdc.sh.
exec "$(dirname "$0")/qcn_tdc.sh" "$(dirname "$0")/tc-testing/qcn_rp_reject.json"
