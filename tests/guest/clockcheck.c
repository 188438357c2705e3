// SPDX-License-Identifier: MIT
/*
 * clockcheck: which clock the guest's kernel keeps time with, and how
 * finely CLOCK_MONOTONIC moves.  Prints one line:
 *
 *   source=tsc getres_ns=4000000 step_ns=104 microsecond=yes
 *
 * source is /sys/devices/system/clocksource/clocksource0/current_clocksource;
 * getres_ns what clock_getres(CLOCK_MONOTONIC) says, which on a kernel
 * without high-resolution timers (the guest's) is the tick whatever the
 * clocksource; step_ns the smallest step seen between two distinct
 * readings in a spin of up to 2000 steps or 50 ms, which is what a timing
 * can resolve (refined-jiffies: 4 ms).  microsecond=yes when that step is
 * at most 50 us, a loose bound.  The guest's /init prints this line at
 * every boot (GUEST-CLOCK=); the bench records it.
 *
 *   clockcheck             print the line
 *   clockcheck --require   the same; exit 1 without a microsecond clock
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#define STEP_BOUND_NS 50000 /* 50 us: refined-jiffies moves 4 ms, the TSC < 1 us */

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void read_source(char *buf, size_t size)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	snprintf(buf, size, "unknown");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* The smallest step between distinct readings; -1 if the clock never moved. */
static long long min_step_ns(void)
{
	long long start = mono_ns(), last = start, best = -1;
	int steps = 0;

	for (long i = 0; i < 100000000L && steps < 2000; i++) {
		long long t = mono_ns();

		if (t == last)
			continue;
		if (best < 0 || t - last < best)
			best = t - last;
		last = t;
		steps++;
		if (t - start > 50000000LL)
			break;
	}
	return best;
}

int main(int argc, char **argv)
{
	int require = argc > 1 && strcmp(argv[1], "--require") == 0;
	char source[64];
	struct timespec res;
	long long step;
	int ok;

	if (argc > 2 || (argc == 2 && !require)) {
		fprintf(stderr, "usage: clockcheck [--require]\n");
		return 2;
	}
	read_source(source, sizeof(source));
	if (clock_getres(CLOCK_MONOTONIC, &res) < 0)
		res = (struct timespec){ 0, -1 };
	step = min_step_ns();
	ok = step > 0 && step <= STEP_BOUND_NS;
	printf("source=%s getres_ns=%lld step_ns=%lld microsecond=%s\n", source,
	       (long long)res.tv_sec * 1000000000LL + res.tv_nsec, step, ok ? "yes" : "no");
	if (require && !ok) {
		fprintf(stderr,
			"clockcheck: CLOCK_MONOTONIC moves in steps of %lld ns on %s, more than "
			"%d ns: no timing of one call means anything (see qemu-usb/run-guest.sh, "
			"the clock)\n",
			step, source, STEP_BOUND_NS);
		return 1;
	}
	return 0;
}
