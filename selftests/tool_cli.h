/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The command-line plumbing the selftest traffic tools share (cnm_send,
 * flow_gen, udp_send).  Include after defining TOOL_NAME (a string
 * literal) and usage_text[].
 */
#ifndef QCN_SELFTEST_TOOL_CLI_H
#define QCN_SELFTEST_TOOL_CLI_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* "TOOL: WHY 'ARG'" and the usage on stderr, exit status 2 (bad usage) */
static void __attribute__((noreturn)) usage(const char *why, const char *arg)
{
	if (why)
		fprintf(stderr, TOOL_NAME ": %s '%s'\n", why, arg);
	fputs(usage_text, stderr);
	exit(2);
}

/* CLOCK_MONOTONIC in seconds */
static inline double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

#endif
