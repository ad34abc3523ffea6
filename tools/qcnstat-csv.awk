# SPDX-License-Identifier: GPL-2.0
#
# csv(line, f): split one CSV line of qcnstat(8) into f[1..n], return n.
# Fields follow RFC 4180: qcnstat quotes a field (a device name) that
# holds a comma or a quote, and doubles the quotes inside it.  Shared by
# qcnplot(8) and the selftests (lib.sh's qcnstat_cols), which prepend this
# file to their awk programs.
function csv(line, f,    n, i, c, q, v) {
	if (index(line, "\"") == 0)
		return split(line, f, ",")
	n = 0; v = ""; q = 0
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (q && c == "\"") {
			if (substr(line, i + 1, 1) == "\"") { v = v c; i++ } else q = 0
		} else if (c == "\"") q = 1
		else if (!q && c == ",") { f[++n] = v; v = "" }
		else v = v c
	}
	f[++n] = v
	return n
}
