// SPDX-License-Identifier: MIT
/*
 * Stream semantics of /dev/pilot: pilotd opens with FOPEN_STREAM |
 * FOPEN_NONSEEKABLE, so with kernel-patches/0001 lseek, pread and pwrite
 * fail with ESPIPE.  --expect success documents the unpatched kernel,
 * where CUSE ignores the flags and all three succeed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "guestlib.h"

int main(int argc, char **argv)
{
	char buf[8];
	int espipe, fd;
	struct pollfd p;
	off_t o;
	ssize_t r, w;

	guest_test_name("stream");
	if (argc != 3 || strcmp(argv[1], "--expect") != 0 ||
	    (strcmp(argv[2], "espipe") != 0 && strcmp(argv[2], "success") != 0))
		fail("usage: %s --expect espipe|success", argv[0]);
	espipe = strcmp(argv[2], "espipe") == 0;

	palm("mode hold");
	palm("reset-stats");
	fd = open(PILOT_DEV, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		fail("open: %s", strerror(errno));
	set_raw(fd);
	/* Data waiting, so that a pread that gets through returns at once. */
	palm("send-pattern 5 64");
	palm("release");
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLIN))
		fail("/dev/pilot not readable 10 s after the Palm sent");

	errno = 0;
	o = lseek(fd, 0, SEEK_SET);
	note("lseek = %lld (%s)", (long long)o, o < 0 ? strerror(errno) : "ok");
	errno = 0;
	r = pread(fd, buf, 1, 0);
	note("pread = %zd (%s)", r, r < 0 ? strerror(errno) : "ok");
	errno = 0;
	w = pwrite(fd, "x", 1, 0);
	note("pwrite = %zd (%s)", w, w < 0 ? strerror(errno) : "ok");

	if (espipe) {
		if (o != -1 || r != -1 || w != -1)
			fail("lseek, pread and pwrite should all fail on a stream");
	} else if (o < 0 || r != 1 || w != 1) {
		fail("expected lseek, pread and pwrite to succeed on the unpatched kernel");
	}
	errno = 0;
	if (espipe && (lseek(fd, 0, SEEK_CUR) >= 0 || errno != ESPIPE))
		fail("lseek failed, but not with ESPIPE: %s", strerror(errno));
	errno = 0;
	if (espipe && (pread(fd, buf, 1, 0) >= 0 || errno != ESPIPE))
		fail("pread failed, but not with ESPIPE: %s", strerror(errno));
	errno = 0;
	if (espipe && (pwrite(fd, "x", 1, 0) >= 0 || errno != ESPIPE))
		fail("pwrite failed, but not with ESPIPE: %s", strerror(errno));
	note("ok: %s", espipe ? "all three fail with ESPIPE" : "all three succeed");
	return 0;
}
