// SPDX-License-Identifier: MIT
/*
 * tsc-khz: this host's TSC rate in kHz, measured against CLOCK_MONOTONIC_RAW
 * over three intervals of 25 ms (the median is printed).  Under TCG a
 * guest's rdtsc reads the host's TSC (QEMU's cpu_get_host_ticks()), so
 * run-guest.sh hands this to the guest kernel as tsc_early_khz= and the
 * kernel needs no calibration against the PIT, which a loaded host
 * disturbs (then the guest falls back to 4 ms jiffies).  Exits 1 on a
 * host without a TSC to read.
 *
 *   tsc-khz
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

static double mono_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * One TSC reading with the time it was taken: the reading bracketed by
 * two clock reads; of 50 tries the tightest bracket wins (a preemption
 * inside the bracket only widens it).
 */
static void sample(uint64_t *tsc, double *ns)
{
	double best = 1e18;

	for (int i = 0; i < 50; i++) {
		double t0 = mono_raw_ns();
		uint64_t c = __rdtsc();
		double t1 = mono_raw_ns();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = c;
			*ns = (t0 + t1) / 2;
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	const struct timespec gap = { 0, 25 * 1000 * 1000 };
	double khz[3];

	for (int i = 0; i < 3; i++) {
		uint64_t c0, c1;
		double t0, t1;

		sample(&c0, &t0);
		nanosleep(&gap, NULL);
		sample(&c1, &t1);
		khz[i] = (double)(c1 - c0) / (t1 - t0) * 1e6;
	}
	qsort(khz, 3, sizeof(khz[0]), cmp_double);
	if (khz[1] < 1000) /* no TSC that moves */
		return 1;
	printf("%.0f\n", khz[1]);
	return 0;
}
#else
int main(void)
{
	return 1;
}
#endif
