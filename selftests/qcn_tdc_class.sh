#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The qcn class tc-testing cases (tc-testing/qcn_class.json) by the kernel's
# tdc.py: AF-QCN classes added, changed, shown and deleted, bad weights,
# rates, options and class ids rejected with the classes unchanged.  See
# qcn_tdc.sh.
exec "$(dirname "$0")/qcn_tdc.sh" "$(dirname "$0")/tc-testing/qcn_class.json"
