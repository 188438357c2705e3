// SPDX-License-Identifier: MIT
/*
 * pilot-bench: throughput, CPU and latency through a serial device node
 * (/dev/pilot, or the visor driver's /dev/ttyUSB1) against the simulated
 * Palm, inside the bench guest.  Prints one "RESULT key=value ..." line;
 * bench/run-bench turns them into the comparison table.
 *
 *   pilot-bench write DEV CALL_SIZE MIB     palm-sim in sink mode
 *   pilot-bench read DEV CALL_SIZE MIB      the Palm sends MIB MiB
 *   pilot-bench write-cooked, read-cooked   the same through the line
 *                                           discipline's processing (OPOST
 *                                           ONLCR; ICRNL): the bytes change
 *                                           in number nowhere, the path does
 *   pilot-bench write-floor DEV CALL_SIZE MIB   write to a device that takes
 *                                           the bytes without a Palm (the
 *                                           bench's cuse-floor): what the calls
 *                                           alone cost
 *   pilot-bench parked-write DEV CALL_SIZE MIB   write beside a parked read
 *   pilot-bench latency DEV BYTES ROUNDS    echo: write BYTES, read them back
 *   pilot-bench park DEV SECONDS            hold a blocked read open
 *   pilot-bench call DEV 0 ROUNDS           a call the driver answers at once
 *                                           (TIOCOUTQ; on CUSE two requests,
 *                                           the size fetched by a retry)
 *   pilot-bench nbread DEV 0 ROUNDS         a non-blocking read with nothing
 *                                           to read (EAGAIN): one request
 *
 * latency, call and nbread time every round; bench/run-bench reports them
 * only when the guest's clock moves in microsecond steps (clockcheck).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cpu.h"
#include "guestlib.h"

static int open_raw(const char *dev)
{
	struct termios t;
	int fd = open(dev, O_RDWR | O_NOCTTY);

	if (fd < 0)
		fail("open %s: %s", dev, strerror(errno));
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		cfsetspeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* Output and input processing on, non-canonical and without echo. */
static void set_cooked(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		fail("tcgetattr: %s", strerror(errno));
	t.c_oflag |= OPOST | ONLCR;
	t.c_iflag |= ICRNL;
	if (tcsetattr(fd, TCSANOW, &t) < 0)
		fail("tcsetattr: %s", strerror(errno));
}

static void report(const char *op, const char *dev, size_t call, double mib, double secs,
		   double cpu)
{
	printf("RESULT op=%s dev=%s call=%zu mib=%.0f secs=%.4f mbps=%.3f cpu_per_mb=%.4f\n", op,
	       dev, call, mib, secs, mib * 1.048576 / secs, cpu / (mib * 1.048576));
}

static void do_write(int fd, const char *dev, size_t call, size_t total, const char *op)
{
	uint8_t *buf = calloc(1, call);
	double t0, c0;
	size_t done = 0;

	bool palm_gets_them = strcmp(op, "write-floor") != 0;

	if (palm_gets_them) {
		palm("mode sink");
		palm("reset-stats");
	}
	t0 = mono_s();
	c0 = cpu_busy_s();
	while (done < total) {
		size_t n = call < total - done ? call : total - done;

		write_full(fd, buf, n);
		done += n;
	}
	if (palm_gets_them)
		palm_wait_stat("out_bytes", total, 600);
	report(op, dev, call, (double)total / 1048576, mono_s() - t0, cpu_busy_s() - c0);
	free(buf);
}

static void do_read(int fd, const char *dev, size_t call, size_t total, const char *op)
{
	uint8_t *buf = malloc(call);
	double t0, c0;
	size_t done = 0;

	palm("mode sink");
	palm("send-pattern 3 %zu", total);
	t0 = mono_s();
	c0 = cpu_busy_s();
	while (done < total) {
		ssize_t r = read(fd, buf, call);

		if (r <= 0)
			fail("read after %zu bytes: %s", done, r < 0 ? strerror(errno) : "EOF");
		done += (size_t)r;
	}
	report(op, dev, call, (double)total / 1048576, mono_s() - t0, cpu_busy_s() - c0);
	free(buf);
}

static int parked_fd;

static void *parked_reader(void *arg)
{
	uint8_t b;

	(void)arg;
	(void)read(parked_fd, &b, 1); /* returns when the bench is over */
	return NULL;
}

/* "mean_us=... min_us=... median_us=... p90_us=... p99_us=..." of rounds
 * timings (sorts us). */
static void print_spread(double *us, int rounds, double total_s)
{
	qsort(us, (size_t)rounds, sizeof(double), cmp_double);
	printf("mean_us=%.1f min_us=%.1f median_us=%.1f p90_us=%.1f p99_us=%.1f\n",
	       total_s * 1e6 / rounds, us[0], us[rounds / 2], us[rounds * 9 / 10],
	       us[rounds * 99 / 100]);
}

static void do_latency(int fd, const char *dev, size_t bytes, int rounds)
{
	uint8_t *out = malloc(bytes), *in = malloc(bytes);
	double *us = calloc((size_t)rounds, sizeof(double));
	double start;

	palm("mode echo");
	memset(out, 0x5a, bytes);
	start = mono_s();
	for (int i = 0; i < rounds; i++) {
		double t0 = mono_s();

		write_full(fd, out, bytes);
		if (read_full(fd, in, bytes) != bytes)
			fail("echo came back short");
		us[i] = (mono_s() - t0) * 1e6;
	}
	printf("RESULT op=latency dev=%s bytes=%zu rounds=%d ", dev, bytes, rounds);
	print_spread(us, rounds, mono_s() - start);
	free(out);
	free(in);
	free(us);
}

/*
 * What a request costs without the USB: on a CUSE device a round trip
 * through its server (TIOCOUTQ: two, nbread: one), on a tty the system
 * call alone.
 */
static void do_call(int fd, const char *dev, int rounds, bool nbread)
{
	double *us = calloc((size_t)rounds, sizeof(double));
	double start = mono_s();
	int queued;
	uint8_t b;

	if (nbread)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (int i = 0; i < rounds; i++) {
		double t0 = mono_s();

		if (nbread && (read(fd, &b, 1) != -1 || errno != EAGAIN))
			fail("non-blocking read: not EAGAIN (%s)", strerror(errno));
		if (!nbread && ioctl(fd, TIOCOUTQ, &queued) < 0)
			fail("TIOCOUTQ: %s", strerror(errno));
		us[i] = (mono_s() - t0) * 1e6;
	}
	printf("RESULT op=%s dev=%s rounds=%d ", nbread ? "nbread" : "call", dev, rounds);
	print_spread(us, rounds, mono_s() - start);
	free(us);
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "", *dev = argc > 2 ? argv[2] : PILOT_DEV;
	size_t a = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	long b = argc > 4 ? strtol(argv[4], NULL, 0) : 0;
	int fd;

	guest_test_name("pilot-bench");
	if (argc != 5 && !(argc == 4 && strcmp(op, "park") == 0)) {
		fprintf(stderr, "usage: see the header of bench/pilot_bench.c\n");
		return 2;
	}
	fd = open_raw(dev);
	if (strcmp(op, "write") == 0 || strcmp(op, "write-floor") == 0) {
		do_write(fd, dev, a, (size_t)b << 20, op);
	} else if (strcmp(op, "read") == 0) {
		do_read(fd, dev, a, (size_t)b << 20, "read");
	} else if (strcmp(op, "write-cooked") == 0) {
		set_cooked(fd);
		do_write(fd, dev, a, (size_t)b << 20, op); /* zeros: no newline to map */
	} else if (strcmp(op, "read-cooked") == 0) {
		set_cooked(fd);
		do_read(fd, dev, a, (size_t)b << 20, op); /* ICRNL maps, counts stay */
	} else if (strcmp(op, "parked-write") == 0) {
		pthread_t t;

		parked_fd = fd;
		pthread_create(&t, NULL, parked_reader, NULL);
		usleep(200000);
		do_write(fd, dev, a, (size_t)b << 20, "parked-write");
		_exit(0); /* the reader is still blocked, by design */
	} else if (strcmp(op, "latency") == 0) {
		do_latency(fd, dev, a, (int)b);
	} else if (strcmp(op, "call") == 0 || strcmp(op, "nbread") == 0) {
		do_call(fd, dev, (int)b, strcmp(op, "nbread") == 0);
	} else if (strcmp(op, "park") == 0) {
		parked_fd = fd;
		pthread_t t;

		pthread_create(&t, NULL, parked_reader, NULL);
		sleep((unsigned int)a);
		_exit(0);
	} else {
		fail("unknown operation '%s'", op);
	}
	close(fd);
	return 0;
}
