// SPDX-License-Identifier: MIT
/*
 * A 32-bit static program asks /dev/pilot for its terminal settings,
 * changes them and reads them back, as legacy i386 sync tools do.  As on
 * the visor tty, the speed stays (usb-serial's tty_termios_copy_hw) and
 * the rest is stored.  With the argument "outq" it asks TIOCOUTQ in its
 * compat form instead: output stopped with TCOOFF, it writes 1 KiB at a
 * time without blocking until no more fits, and TIOCOUTQ must count every
 * byte written (as n_tty's write() puts them in the tty driver's buffer):
 * with the stream-write series (7.3) that is pilotd's answer plus what
 * waits in the kernel's buffer of the file, which cuse_file_compat_ioctl()
 * must add as the native path does.  A tcflush(TCOFLUSH) then drops every
 * byte written (tty_driver_flush_buffer()): TIOCOUTQ 0, with what pilotd
 * held and what the kernel had sent it alike.  With "outq-close" it fills
 * the same queues and then closes without restarting the output or
 * flushing it: a tty's close waits out its closing wait (30 s) and drops
 * its driver's buffer (tty_port_close_start()); with the stream-write
 * series the kernel's release then asks pilotd to end the drain it holds
 * (FUSE_INTERRUPT), so the close returns after about 30 s, not when the
 * handheld takes the bytes, and the next open works.  Built with -m32
 * -static; uses only libc and the kernel's ioctl numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

struct k_termios { /* the kernel's struct termios, the same on i386 */
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[19];
};

/*
 * The handheld attached (the carrier line): before it, pilotd drops what
 * is written (no device on the line) and its arrival starts output anew,
 * TCOOFF's stop gone with the line's earlier state.  The guest's program
 * may open /dev/pilot while palm-sim is still being set up.
 */
static int wait_attached(int fd)
{
	int lines = 0;

	for (int tries = 0; tries < 300; tries++) {
		if (ioctl(fd, TIOCMGET, &lines) < 0)
			break;
		if (lines & TIOCM_CAR)
			return 0;
		poll(NULL, 0, 100);
	}
	fprintf(stderr, "tty32: FAIL: no handheld attached within 30 s (%s)\n", strerror(errno));
	return -1;
}

/* Stop the output and write until nothing more fits: the bytes written, or -1. */
static long fill_stopped(int fd)
{
	static char chunk[1024];
	long total = 0;
	ssize_t w;

	memset(chunk, 'q', sizeof(chunk));
	if (wait_attached(fd) < 0)
		return -1;
	if (ioctl(fd, TCXONC, TCOOFF) < 0) {
		fprintf(stderr, "tty32: FAIL: TCOOFF: %s\n", strerror(errno));
		return -1;
	}
	/*
	 * Until the queues before the handheld are full: a write fails with
	 * EAGAIN and poll() finds no room within a second.  With the
	 * stream-write series (7.3) that is pilotd's 512 KiB txq, a drain of
	 * the kernel's buffer waiting in pilotd for room, and the buffer
	 * full.  Bounded: 1 MiB is more than all of them.  poll() also
	 * sleeps: usleep()'s 32-bit time call may be missing in the guest.
	 */
	while (total < 1048576) {
		w = write(fd, chunk, sizeof(chunk));
		if (w > 0)
			total += w;
		else if (w < 0 && errno == EAGAIN &&
			 poll(&(struct pollfd){ .fd = fd, .events = POLLOUT }, 1, 1000) == 1)
			continue;
		else
			break;
	}
	if (total == 0 || total >= 1048576 || errno != EAGAIN) {
		fprintf(stderr, "tty32: FAIL: %ld bytes written under TCOOFF (%s)\n", total,
			strerror(errno));
		return -1;
	}
	return total;
}

static int outq(int fd)
{
	long total = fill_stopped(fd);
	int n = -1, left = -1;

	if (total < 0)
		return 1;
	poll(NULL, 0, 300); /* a loose settle: nothing can leave while output is off */
	if (ioctl(fd, TIOCOUTQ, &n) < 0 || n != total)
		fprintf(stderr, "tty32: FAIL: TIOCOUTQ %d (%s) after %ld bytes written\n", n,
			strerror(errno), total);
	if (ioctl(fd, TCFLSH, TCOFLUSH) < 0 || ioctl(fd, TIOCOUTQ, &left) < 0 || left != 0)
		fprintf(stderr, "tty32: FAIL: TIOCOUTQ %d (%s) after tcflush(TCOFLUSH)\n", left,
			strerror(errno));
	/*
	 * Restarted in any case: a close with the output stopped and a drain
	 * parked in pilotd would wait for it (docs/kernel-data-path.md).
	 */
	ioctl(fd, TCXONC, TCOON);
	if (n != total || left != 0)
		return 1;
	printf("tty32: a 32-bit TIOCOUTQ counted all %ld bytes written under TCOOFF, 0 after "
	       "tcflush\n", total);
	return 0;
}

/*
 * The last close with the queues full and the output stopped, made by a
 * child once this process closed its copy; timed with poll(), as the
 * 32-bit time calls may be missing in the guest.
 */
static int outq_close(int fd)
{
	long total = fill_stopped(fd);
	int go[2], done[2], again;
	struct pollfd pfd;
	char r = 1;
	pid_t pid;

	if (total < 0)
		return 1;
	if (pipe(go) || pipe(done) || (pid = fork()) < 0) {
		fprintf(stderr, "tty32: FAIL: pipe/fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		if (read(go[0], &r, 1) != 1)
			_exit(1);
		r = close(fd) == 0 ? 0 : 1;
		_exit(write(done[1], &r, 1) == 1 ? 0 : 1);
	}
	close(fd);
	close(done[1]);
	if (write(go[1], "g", 1) != 1)
		return 1;
	pfd = (struct pollfd){ .fd = done[0], .events = POLLIN };
	/* the closing wait: nothing leaves while the output is stopped */
	if (poll(&pfd, 1, 20000) != 0) {
		fprintf(stderr, "tty32: FAIL: close() returned within 20 s of %ld bytes written "
			"under TCOOFF\n", total);
		return 1;
	}
	/* then the bytes not sent are dropped: 30 s and a loose bound */
	if (poll(&pfd, 1, 25000) != 1 || read(done[0], &r, 1) != 1 || r != 0) {
		fprintf(stderr, "tty32: FAIL: close() did not return within 45 s of %ld bytes "
			"written under TCOOFF\n", total);
		return 1;
	}
	again = open("/dev/pilot", O_RDWR | O_NONBLOCK);
	if (again < 0 || ioctl(again, TCXONC, TCOON) < 0) {
		fprintf(stderr, "tty32: FAIL: the next open: %s\n", strerror(errno));
		return 1;
	}
	close(again);
	printf("tty32: a close with %ld bytes written under TCOOFF returned after its closing "
	       "wait; the next open works\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	struct k_termios t, want, back;
	int fd = open("/dev/pilot", O_RDWR | O_NONBLOCK), lines = 0;

	_Static_assert(sizeof(void *) == 4, "build this with -m32");
	if (argc > 1 && strcmp(argv[1], "outq") == 0) {
		if (fd < 0) {
			fprintf(stderr, "tty32: FAIL: open: %s\n", strerror(errno));
			return 1;
		}
		return outq(fd);
	}
	if (argc > 1 && strcmp(argv[1], "outq-close") == 0) {
		if (fd < 0) {
			fprintf(stderr, "tty32: FAIL: open: %s\n", strerror(errno));
			return 1;
		}
		return outq_close(fd);
	}
	if (fd < 0 || ioctl(fd, TCGETS, &t) < 0) {
		fprintf(stderr, "tty32: FAIL: open/TCGETS: %s\n", strerror(errno));
		return 1;
	}
	want = t;
	t.c_cc[6] = want.c_cc[6] = 9;		       /* VMIN */
	t.c_cflag = (t.c_cflag & ~0010017u) | 0000015; /* B19200: not kept */
	if (ioctl(fd, TCSETS, &t) < 0 || ioctl(fd, TCGETS, &back) < 0 ||
	    memcmp(&want, &back, sizeof(want)) != 0) {
		fprintf(stderr, "tty32: FAIL: TCSETS did not read back: %s\n", strerror(errno));
		return 1;
	}
	if (ioctl(fd, TIOCMGET, &lines) < 0 || !(lines & TIOCM_CD)) {
		fprintf(stderr, "tty32: FAIL: TIOCMGET 0x%x (%s)\n", lines, strerror(errno));
		return 1;
	}
	printf("tty32: a 32-bit program set and read back termios, TIOCMGET 0x%x\n", lines);
	return 0;
}
