// SPDX-License-Identifier: MIT
/*
 * /dev/pilot outlives the handheld.  Run with the simulated Palm unplugged
 * at boot:
 *  - open succeeds without a handheld, and a parked read returns the data
 *    the Palm sends once it is plugged in;
 *  - unplugged in the middle of a transfer, a reader still gets the bytes
 *    already received, then end of file and POLLHUP; a writer gets EIO;
 *  - a new open after that works and data flows again;
 *  - 20 plug/unplug cycles leave pilotd's open fds and VmRSS where they were.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guestlib.h"
#include "testpattern.h"

#define CYCLES		    20
#define RSS_GROWTH_BOUND_KB 256

static int reader_fd;
static atomic_int reader_tid;
static uint8_t reader_buf[100];
static size_t reader_got;

static void expect_pattern(const uint8_t *buf, size_t len, uint64_t seed, size_t skip,
			   const char *what)
{
	struct testpattern tp;

	testpattern_init(&tp, seed);
	for (size_t i = 0; i < skip; i++)
		testpattern_next(&tp);
	for (size_t i = 0; i < len; i++)
		if (buf[i] != testpattern_next(&tp))
			fail("%s: byte %zu is not what the Palm sent", what, i);
}

static void *reader(void *arg)
{
	atomic_store(&reader_tid, gettid());
	reader_got = read_full(reader_fd, reader_buf, sizeof(reader_buf));
	return NULL;
}

static void open_before_plug(void)
{
	struct timespec deadline;
	pthread_t t;

	reader_fd = open(PILOT_DEV, O_RDWR);
	if (reader_fd < 0)
		fail("open without a handheld: %s", strerror(errno));
	set_raw(reader_fd);
	pthread_create(&t, NULL, reader, NULL);
	while (!atomic_load(&reader_tid))
		usleep(1000);
	wait_sleeping(getpid(), atomic_load(&reader_tid));
	palm("mode sink");
	palm("send-pattern 7 %zu", sizeof(reader_buf));
	palm("plug");
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 30;
	if (pthread_timedjoin_np(t, NULL, &deadline) != 0)
		fail("a read parked before the Palm was plugged in did not return within 30 s");
	if (reader_got != sizeof(reader_buf))
		fail("the parked read got %zu bytes", reader_got);
	expect_pattern(reader_buf, reader_got, 7, 0, "open before plug");
	close(reader_fd);
	note("a read parked before the handheld arrived returned its %zu bytes", reader_got);
}

static int writer_fd;
static atomic_int writer_errno;

static void *writer(void *arg)
{
	uint8_t buf[4096] = { 0 };

	for (;;) {
		if (write(writer_fd, buf, sizeof(buf)) < 0) {
			atomic_store(&writer_errno, errno);
			return NULL;
		}
	}
}

static void unplug_mid_transfer(void)
{
	uint8_t buf[1000];
	struct pollfd p;
	pthread_t wt;
	double deadline;
	ssize_t r;
	int fd = open_attached(O_RDWR, 30);

	palm("mode hold");
	palm("reset-stats");
	palm("send-pattern 8 1000");
	palm("release");
	if (read_full(fd, buf, 500) != 500)
		fail("could not read the first 500 bytes");
	palm_wait_stat("in_bytes", 1000, 10); /* the rest sits in pilotd */

	writer_fd = fd;
	pthread_create(&wt, NULL, writer, NULL);
	palm_wait_stat("plugged", 1, 1);
	while (palm_stat("out_bytes") < 64 * 1024)
		usleep(10000);
	palm("unplug");

	if (read_full(fd, buf + 500, 500) != 500)
		fail("bytes received before the unplug were lost");
	expect_pattern(buf, 1000, 8, 0, "unplug");
	r = read(fd, buf, sizeof(buf));
	if (r != 0)
		fail("read after the unplug returned %zd (%s), expected 0 (end of file)", r,
		     r < 0 ? strerror(errno) : "data");
	p = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	if (poll(&p, 1, 1000) != 1 || !(p.revents & POLLHUP))
		fail("poll after the unplug: revents 0x%x, expected POLLHUP", p.revents);
	deadline = now_s() + 10;
	while (!atomic_load(&writer_errno) && now_s() < deadline)
		usleep(10000);
	if (atomic_load(&writer_errno) != EIO)
		fail("the writer did not end with EIO (errno %d)", atomic_load(&writer_errno));
	pthread_join(wt, NULL);
	if (write(fd, "x", 1) != -1 || errno != EIO)
		fail("write on a hung-up file did not fail with EIO");
	close(fd);
	note("unplugged mid-transfer: delivered bytes, then EOF, POLLHUP and EIO");
}

/* Plug in, move 64 bytes each way through a fresh open, unplug, expect EOF. */
static void session(uint64_t seed)
{
	uint8_t buf[64];
	uint64_t out0;
	int fd;

	palm("reset-stats");
	palm("plug");
	fd = open_attached(O_RDWR, 30);
	out0 = palm_stat("out_bytes");
	write_full(fd, buf, sizeof(buf));
	palm_wait_stat("out_bytes", out0 + sizeof(buf), 30);
	palm("send-pattern %llu %zu", (unsigned long long)seed, sizeof(buf));
	palm("release");
	if (read_full(fd, buf, sizeof(buf)) != sizeof(buf))
		fail("read after replug came up short");
	expect_pattern(buf, sizeof(buf), seed, 0, "replug");
	palm("unplug");
	if (read(fd, buf, sizeof(buf)) != 0)
		fail("read after unplug did not return end of file");
	close(fd);
}

static int count_fds(pid_t pid)
{
	char path[64];
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		fail("cannot list %s", path);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;
}

static void cycles(void)
{
	pid_t pid = find_pilotd();
	int fds0, fds1;
	long rss0, rss1;
	double t0;

	session(100); /* warm-up: first-time allocations are not growth */
	/* pilotd closes the departed device once its transfers are back */
	sleep(1);
	fds0 = count_fds(pid);
	rss0 = proc_status_kb(pid, "VmRSS");
	t0 = now_s();
	for (int i = 0; i < CYCLES; i++)
		session(200 + (uint64_t)i);
	sleep(1);
	fds1 = count_fds(pid);
	rss1 = proc_status_kb(pid, "VmRSS");
	note("%d plug/unplug cycles in %.1f s: pilotd fds %d -> %d, VmRSS %ld -> %ld kB", CYCLES,
	     now_s() - t0, fds0, fds1, rss0, rss1);
	if (fds1 != fds0)
		fail("pilotd's open fds grew from %d to %d over %d cycles", fds0, fds1, CYCLES);
	/* AddressSanitizer keeps freed memory in quarantine: RSS says nothing */
	if (pilotd_sanitized(pid))
		note("pilotd is sanitized: its VmRSS is not held to the bound");
	else if (rss1 - rss0 > RSS_GROWTH_BOUND_KB)
		fail("pilotd's VmRSS grew by %ld kB over %d cycles", rss1 - rss0, CYCLES);
}

int main(void)
{
	guest_test_name("lifetime");
	open_before_plug();
	unplug_mid_transfer();
	cycles();
	note("ok");
	return 0;
}
