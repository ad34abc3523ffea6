# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by scripts/uml-build, scripts/uml-run and scripts/setup: where the
# UML kernels live (outside the checkout, shared by every clone).
# shellcheck disable=SC2034 # read by the scripts that source this
UML_CACHE="${QCN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/linux-qcn}/uml"

# The linux-source-6.1 version apt would install (e.g. 6.1.192-2).
uml_source_version()
{
	local v
	v=$(apt-cache policy linux-source-6.1 2>/dev/null | awk '/Candidate:/ {print $2; exit}')
	[ -n "$v" ] && [ "$v" != "(none)" ] && echo "$v"
}
