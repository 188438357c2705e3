// SPDX-License-Identifier: MIT
/*
 * Non-canonical reads honour VMIN and VTIME as a tty does, O_NONBLOCK
 * gives EAGAIN, and select() with pilot-link's timeouts (2 s, 32 s) times
 * out and wakes up as it should.  Time bounds are loose guards.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/select.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"

static int fd;

static void set_vmin_vtime(int vmin, int vtime)
{
	struct termios t;

	tcgetattr(fd, &t);
	cfmakeraw(&t);
	t.c_cc[VMIN] = (cc_t)vmin;
	t.c_cc[VTIME] = (cc_t)vtime;
	if (tcsetattr(fd, TCSANOW, &t) < 0)
		fail("tcsetattr: %s", strerror(errno));
}

/* After delay_ms, let the Palm send n bytes (from another thread). */
struct later {
	int delay_ms;
	int n;
};

static void *send_later(void *arg)
{
	struct later *l = arg;

	usleep((useconds_t)l->delay_ms * 1000);
	palm("send-pattern 11 %d", l->n);
	palm("release");
	return NULL;
}

static ssize_t timed_read(size_t size, double *elapsed)
{
	char buf[64];
	double t0 = now_s();
	ssize_t r = read(fd, buf, size);

	*elapsed = now_s() - t0;
	return r;
}

static void expect_read(const char *what, size_t size, ssize_t want, double lo, double hi)
{
	double dt;
	ssize_t r = timed_read(size, &dt);

	if (r != want || dt < lo || dt > hi)
		fail("%s: read returned %zd after %.2f s, expected %zd within [%.1f, %.1f] s", what,
		     r, dt, want, lo, hi);
	note("%s: %zd bytes after %.2f s", what, r, dt);
}

static void with_sender(const char *what, int delay_ms, int n, size_t size, ssize_t want, double lo,
			double hi)
{
	struct later l = { delay_ms, n };
	pthread_t t;

	pthread_create(&t, NULL, send_later, &l);
	expect_read(what, size, want, lo, hi);
	pthread_join(t, NULL);
	tcflush(fd, TCIFLUSH);
}

static void selects(void)
{
	struct later l = { 500, 4 };
	struct timeval tv = { .tv_sec = 2 };
	pthread_t t;
	fd_set rd;
	double t0 = now_s();
	int r;

	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	r = select(fd + 1, &rd, NULL, NULL, &tv);
	if (r != 0 || now_s() - t0 < 1.9 || now_s() - t0 > 20)
		fail("select with a 2 s timeout returned %d after %.2f s", r, now_s() - t0);
	note("select, 2 s timeout, no data: 0 after %.2f s", now_s() - t0);

	pthread_create(&t, NULL, send_later, &l);
	tv = (struct timeval){ .tv_sec = 32 };
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	t0 = now_s();
	r = select(fd + 1, &rd, NULL, NULL, &tv);
	if (r != 1 || !FD_ISSET(fd, &rd) || now_s() - t0 > 10)
		fail("select with a 32 s timeout returned %d after %.2f s, the Palm sent after 0.5 "
		     "s",
		     r, now_s() - t0);
	note("select, 32 s timeout: readable after %.2f s", now_s() - t0);
	pthread_join(t, NULL);
	tcflush(fd, TCIFLUSH);
}

int main(void)
{
	char c;

	guest_test_name("vtime");
	palm("mode hold");
	fd = open_attached(O_RDWR | O_NOCTTY, 30);
	if (fd < 0)
		fail("open: %s", strerror(errno));

	set_vmin_vtime(0, 0);
	expect_read("VMIN 0 VTIME 0, no data", 10, 0, 0, 0.5);
	set_vmin_vtime(0, 5);
	expect_read("VMIN 0 VTIME 5, no data", 10, 0, 0.4, 5);
	with_sender("VMIN 0 VTIME 20, 3 bytes after 0.3 s", 300, 3, 10, 3, 0.2, 1.9);
	set_vmin_vtime(5, 0);
	with_sender("VMIN 5 VTIME 0, 5 bytes after 0.3 s", 300, 5, 10, 5, 0.2, 10);
	set_vmin_vtime(5, 3);
	with_sender("VMIN 5 VTIME 3, 3 bytes then silence", 200, 3, 10, 3, 0.4, 5);

	set_vmin_vtime(1, 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (read(fd, &c, 1) != -1 || errno != EAGAIN)
		fail("O_NONBLOCK read with no data did not fail with EAGAIN");
	if (write(fd, "x", 1) != 1)
		fail("O_NONBLOCK write: %s", strerror(errno));
	note("O_NONBLOCK: read EAGAIN, write accepted");
	fcntl(fd, F_SETFL, 0);

	selects();
	close(fd);
	return 0;
}
