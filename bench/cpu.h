/* SPDX-License-Identifier: MIT */
/* Guest-wide busy CPU time from /proc/stat, a monotonic clock, and qsort's
 * comparison of timings. */
#ifndef BENCH_CPU_H
#define BENCH_CPU_H

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Seconds of CPU spent busy (user, nice, system, irq, softirq) by all CPUs. */
static inline double cpu_busy_s(void)
{
	unsigned long long u = 0, n = 0, s = 0, idle = 0, io = 0, irq = 0, sirq = 0;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &u, &n, &s, &idle, &io, &irq,
		   &sirq) != 7)
		u = n = s = irq = sirq = 0;
	fclose(f);
	return (double)(u + n + s + irq + sirq) / (double)sysconf(_SC_CLK_TCK);
}

static inline double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif
