// SPDX-License-Identifier: MIT
/*
 * A careless or hostile user of /dev/pilot against pilotd's push, its
 * default where the kernel offers it (kernel-patches/stream-data, issue
 * 41): what any dialout user may do
 * with the port while pilotd pushes the handheld's bytes into the
 * kernel's buffer of the open file.  The simulated Palm echoes what is
 * written; every attack checks the echo byte for byte.
 *
 * Usage: stream-client-attack [--declined] [ATTACK]...   (none: all of them)
 *
 * --declined runs pilotd --no-stream-data (every read a request): the
 * same attacks on today's path, and what n_tty does where the push differs.
 *
 *   session     open A, let its echo be pushed, close A unread; open B: B
 *               reads its own echo and nothing of A's
 *   tiny        a 512-byte echo read one byte at a time
 *   huge        ... read with a 1 MiB buffer
 *   readv       ... read with readv() into three parts
 *   nonblock    O_NONBLOCK: EAGAIN with nothing there, then the echo
 *   aio         ... read with Linux AIO (IOCB_CMD_PREAD)
 *   uring       ... read with io_uring (IORING_OP_READ)
 *   kill-reader a reader killed (SIGKILL) while its read waits in pilotd:
 *               the next echo arrives whole, in order
 *   fork-readers two processes read one file (fork): every byte once
 *   many-opens  16 opens (pushes stop), then one again (pushes resume):
 *               each echo whole, in order
 *   aio-close   an aio poll holds a closed file when its input is pushed:
 *               the poll completes and pilotd answers the next open
 *   stall       a 12 KiB echo left unread for 2 s (the kernel's buffer
 *               full): pilotd idles, then every byte comes in order
 *   hangup      the handheld leaves while its echo waits unread: the file
 *               reads it, then end of file; back, a new file reads its own
 *   vmin        VMIN raised to 8 after bytes were pushed: n_tty's read
 *               waits for 8 (pilotd takes the pushed bytes back first)
 *   tcflush     tcflush(TCIFLUSH) after bytes were pushed: gone (pilotd
 *               takes them back and drops them with its own)
 *   icanon      ICANON turned on over raw bytes: read() returns them at once
 *
 * pilotd must answer each attack and exit 0 at the end, having pushed
 * bytes (its exit line; none with --declined).  Each attack runs in a child with a deadline.
 * Prints "PASS name" or "FAIL name: why" for each; exits 1 if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"

#define LOG_PATH "/tmp/pilotd-stream-client-attack.log"
#define ATTACK_S 60
#define ECHO_LEN 512

#define FAILED attack_failed

static void pattern(unsigned char *b, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (unsigned char)(i * 13 + seed * 29 + 1);
}

static int open_raw(int flags)
{
	int fd = open_attached(O_RDWR | O_NOCTTY | flags, 20);

	set_raw(fd);
	return fd;
}

/* Wait until fd is readable; false after 5 s. */
static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 5000) == 1;
}

typedef ssize_t (*reader_fn)(int fd, unsigned char *buf, size_t len);

/* Write an echo of len bytes and read it back with rd; NULL if it came whole. */
static const char *echo_with(int fd, size_t len, unsigned int seed, reader_fn rd)
{
	unsigned char out[4096], in[4096];
	size_t got = 0;

	pattern(out, len, seed);
	write_full(fd, out, len);
	while (got < len) {
		ssize_t n;

		if (!readable(fd))
			return FAILED("no input within 5 s after %zu of %zu bytes", got, len);
		n = rd(fd, in + got, len - got);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0)
			return FAILED("read: %zd (%s) after %zu of %zu bytes", n,
				      n < 0 ? strerror(errno) : "end of file", got, len);
		got += (size_t)n;
	}
	for (size_t i = 0; i < len; i++)
		if (in[i] != out[i])
			return FAILED("byte %zu of the echo is 0x%02x, sent 0x%02x", i, in[i],
				      out[i]);
	return NULL;
}

static size_t min_size_t(size_t a, size_t b)
{
	return a < b ? a : b;
}

static ssize_t read_plain(int fd, unsigned char *buf, size_t len)
{
	return read(fd, buf, len);
}

/* Nothing more within 300 ms. */
static const char *quiet(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char c;

	if (poll(&p, 1, 300) == 1) {
		ssize_t n = read(fd, &c, 1);

		return FAILED("a byte more after the echo (read %zd: 0x%02x)", n, c);
	}
	return NULL;
}

static const char *attack_session(void)
{
	unsigned char out[ECHO_LEN];
	int a, b;
	const char *err;

	for (int round = 0; round < 20; round++) {
		a = open_raw(0);
		pattern(out, ECHO_LEN, 100 + (unsigned)round);
		write_full(a, out, ECHO_LEN);
		if (!readable(a))
			return FAILED("round %d: A's echo did not come", round);
		usleep(200000); /* the whole echo is pushed to A's buffer */
		close(a);
		b = open_raw(0);
		if ((err = echo_with(b, ECHO_LEN, 200 + (unsigned)round, read_plain)))
			return FAILED("round %d, B after A closed unread: %s", round, err);
		if ((err = quiet(b)))
			return FAILED("round %d: %s", round, err);
		close(b);
	}
	return NULL;
}

/* One echo through a file opened for it, read by rd; the file closed after. */
static const char *echo_on_new_file(unsigned int seed, reader_fn rd)
{
	int fd = open_raw(0);
	const char *err = echo_with(fd, ECHO_LEN, seed, rd);

	close(fd);
	return err;
}

static ssize_t read_one(int fd, unsigned char *buf, size_t len)
{
	(void)len;
	return read(fd, buf, 1);
}

static const char *attack_tiny(void)
{
	return echo_on_new_file(1, read_one);
}

static ssize_t read_huge(int fd, unsigned char *buf, size_t len)
{
	static unsigned char big[1 << 20];
	ssize_t n = read(fd, big, sizeof(big));

	if (n > (ssize_t)len) {
		errno = EOVERFLOW;
		return -1;
	}
	if (n > 0)
		memcpy(buf, big, (size_t)n);
	return n;
}

static const char *attack_huge(void)
{
	return echo_on_new_file(2, read_huge);
}

static ssize_t read_vec(int fd, unsigned char *buf, size_t len)
{
	size_t a = len < 7 ? len : 7, b = len - a < 100 ? len - a : 100;
	struct iovec iov[3] = { { buf, a }, { buf + a, b }, { buf + a + b, len - a - b } };

	return readv(fd, iov, 3);
}

static const char *attack_readv(void)
{
	return echo_on_new_file(3, read_vec);
}

static const char *attack_nonblock(void)
{
	int fd = open_raw(O_NONBLOCK);
	unsigned char c;
	const char *err;

	if (read(fd, &c, 1) != -1 || errno != EAGAIN)
		return FAILED("a read with nothing there did not fail with EAGAIN");
	err = echo_with(fd, ECHO_LEN, 4, read_plain);
	if (!err && (read(fd, &c, 1) != -1 || errno != EAGAIN))
		err = FAILED("a read after the echo did not fail with EAGAIN");
	close(fd);
	return err;
}

static ssize_t read_aio(int fd, unsigned char *buf, size_t len)
{
	aio_context_t ctx = 0;
	struct iocb cb = { .aio_fildes = (uint32_t)fd,
			   .aio_lio_opcode = IOCB_CMD_PREAD,
			   .aio_buf = (uint64_t)(uintptr_t)buf,
			   .aio_nbytes = len };
	struct iocb *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { 5, 0 };
	ssize_t n = -1;

	if (syscall(SYS_io_setup, 1, &ctx) < 0)
		return -1;
	if (syscall(SYS_io_submit, ctx, 1, cbs) == 1 &&
	    syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts) == 1) {
		n = ev.res < 0 ? -1 : ev.res;
		if (ev.res < 0)
			errno = (int)-ev.res;
	}
	syscall(SYS_io_destroy, ctx);
	return n;
}

static ssize_t read_uring(int fd, unsigned char *buf, size_t len)
{
	struct io_uring_sqe rd = { .opcode = IORING_OP_READ,
				   .fd = fd,
				   .addr = (uintptr_t)buf,
				   .len = (unsigned)len,
				   .off = -1ull };
	struct guest_uring *ring;
	int err, res;

	ring = guest_uring_submit(&rd, &err);
	if (!ring) {
		errno = -err;
		return -1;
	}
	res = guest_uring_result(ring);
	guest_uring_close(ring);
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

static const char *attack_uring(void)
{
	return echo_on_new_file(6, read_uring);
}

static const char *attack_aio(void)
{
	return echo_on_new_file(5, read_aio);
}

/*
 * An aio poll holds the last reference of a closed file when pilotd pushes
 * the file's input: the poll completes (in the kernel's worker, not in
 * pilotd's write()), the file is released, and pilotd answers the next open.
 */
static const char *attack_aio_close(void)
{
	unsigned char out[64];
	aio_context_t ctx = 0;
	struct iocb cb = { .aio_lio_opcode = IOCB_CMD_POLL, .aio_buf = POLLIN };
	struct iocb *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { 5, 0 };
	const char *err;
	double t0;
	int fd;

	for (int round = 0; round < 5; round++) {
		fd = open_raw(0);
		cb.aio_fildes = (uint32_t)fd;
		if (syscall(SYS_io_setup, 1, &ctx) < 0)
			return FAILED("io_setup: %s", strerror(errno));
		pattern(out, sizeof(out), 80 + (unsigned)round);
		write_full(fd, out, sizeof(out));
		if (syscall(SYS_io_submit, ctx, 1, cbs) != 1)
			return FAILED("io_submit: %s", strerror(errno));
		close(fd); /* the aio poll holds the file now */
		if (syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts) != 1)
			return FAILED("round %d: the aio poll did not complete in 5 s", round);
		if (!(ev.res & POLLIN))
			return FAILED("round %d: the aio poll completed with 0x%llx", round,
				      (unsigned long long)ev.res);
		syscall(SYS_io_destroy, ctx);
		ctx = 0;
		/* The completion dropped the file's last reference in the kernel's
		 * worker, whose fput() releases it a tick later (delayed_fput): an
		 * open before that is a second open of a tty still open, and
		 * reads what is left of the first one's input, as n_tty's would. */
		usleep(300000);
		t0 = now_s();
		fd = open_raw(0);
		if (now_s() - t0 > 2)
			return FAILED("round %d: the next open took %.1f s", round, now_s() - t0);
		if ((err = echo_with(fd, ECHO_LEN, 90 + (unsigned)round, read_plain)))
			return FAILED("round %d, after: %s", round, err);
		close(fd);
	}
	return NULL;
}

static const char *attack_kill_reader(void)
{
	int fd = open_raw(0);
	const char *err = NULL;

	for (int round = 0; round < 5 && !err; round++) {
		pid_t child = fork();
		unsigned char c;

		if (child == 0) {
			ssize_t n = read(fd, &c, 1); /* nothing there: a request */

			_exit(n == 1 ? 3 : 4);
		}
		wait_sleeping(child, child);
		usleep(50000);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		err = echo_with(fd, ECHO_LEN, 60 + (unsigned)round, read_plain);
	}
	close(fd);
	return err;
}

/* Read what comes until quiet for 1 s; count each byte value. */
static size_t read_histogram(int fd, unsigned long hist[256])
{
	unsigned char buf[300];
	size_t got = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 1000) != 1)
			return got;
		n = read(fd, buf, 1 + (size_t)rand() % sizeof(buf));
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0)
			return got;
		for (ssize_t i = 0; i < n; i++)
			hist[buf[i]]++;
		got += (size_t)n;
	}
}

static const char *attack_fork_readers(void)
{
	int fd = open_raw(O_NONBLOCK), pfd[2];
	unsigned long mine[256] = { 0 }, theirs[256] = { 0 }, want[256] = { 0 };
	unsigned char out[ECHO_LEN];
	size_t got, their_got = 0;
	pid_t child;

	if (pipe(pfd))
		return FAILED("pipe: %s", strerror(errno));
	child = fork();
	if (child == 0) {
		srand(2);
		got = read_histogram(fd, theirs);
		if (write(pfd[1], &got, sizeof(got)) != sizeof(got) ||
		    write(pfd[1], theirs, sizeof(theirs)) != sizeof(theirs))
			_exit(1);
		_exit(0);
	}
	srand(1);
	for (unsigned r = 0; r < 8; r++) {
		pattern(out, ECHO_LEN, 300 + r);
		for (size_t i = 0; i < ECHO_LEN; i++)
			want[out[i]]++;
		write_full(fd, out, ECHO_LEN);
	}
	got = read_histogram(fd, mine);
	if (read(pfd[0], &their_got, sizeof(their_got)) != sizeof(their_got) ||
	    read(pfd[0], theirs, sizeof(theirs)) != sizeof(theirs))
		return FAILED("the child reader reported nothing");
	waitpid(child, NULL, 0);
	if (got + their_got != 8 * ECHO_LEN)
		return FAILED("%zu + %zu bytes read of %d echoed", got, their_got, 8 * ECHO_LEN);
	for (int v = 0; v < 256; v++)
		if (mine[v] + theirs[v] != want[v])
			return FAILED("value 0x%02x read %lu times, echoed %lu", v,
				      mine[v] + theirs[v], want[v]);
	note("fork-readers: %zu + %zu bytes, every byte once", got, their_got);
	close(fd);
	return NULL;
}

static const char *attack_many_opens(void)
{
	int fds[16];
	const char *err;

	for (int i = 0; i < 16; i++)
		fds[i] = open_raw(0);
	err = echo_with(fds[0], ECHO_LEN, 7, read_plain);
	for (int i = 1; i < 16; i++)
		close(fds[i]);
	if (!err)
		err = echo_with(fds[0], ECHO_LEN, 8, read_plain);
	if (!err)
		err = quiet(fds[0]);
	close(fds[0]);
	return err;
}

/*
 * POSIX (and n_tty) with VMIN 8, VTIME 0: a read waits until 8 bytes are
 * there.  Bytes pushed while VMIN was 1 come back to pilotd at the change
 * (FUSE_NOTIFY_STREAM_RETRIEVE), which then waits for 8 as n_tty does.
 */
static const char *attack_vmin(void)
{
	int fd = open_raw(0);
	unsigned char out[8] = "abcdefgh", in[100];
	struct termios t;
	pid_t child;
	ssize_t n;

	write_full(fd, out, 4);
	if (!readable(fd))
		return FAILED("the first 4 bytes did not come");
	usleep(200000);
	tcgetattr(fd, &t);
	t.c_cc[VMIN] = 8;
	t.c_cc[VTIME] = 0;
	tcsetattr(fd, TCSANOW, &t);
	child = fork();
	if (child == 0) {
		usleep(500000);
		write_full(fd, out + 4, 4);
		_exit(0);
	}
	n = read(fd, in, sizeof(in));
	waitpid(child, NULL, 0);
	close(fd); /* the rest goes with the last close */
	if (n < 8)
		return FAILED("read with VMIN 8 returned %zd bytes; n_tty waits for 8", n);
	return NULL;
}

/*
 * tcflush(TCIFLUSH) after bytes were pushed: n_tty discards them, and the
 * next read gets only what came after.  pilotd takes the kernel's bytes
 * back (FUSE_NOTIFY_STREAM_RETRIEVE) and drops them with its own.
 */
static const char *attack_tcflush(void)
{
	unsigned char out[64];
	const char *err;
	int fd = open_raw(0);

	pattern(out, sizeof(out), 70);
	write_full(fd, out, sizeof(out));
	if (!readable(fd))
		return FAILED("the first echo did not come");
	usleep(200000);
	tcflush(fd, TCIFLUSH);
	err = echo_with(fd, sizeof(out), 71, read_plain);
	if (err)
		err = FAILED("after tcflush(TCIFLUSH): %s", err);
	close(fd);
	return err;
}

/* Read with a deadline: -2 if the read still waits after 2 s. */
static ssize_t read_within_2s(int fd, unsigned char *buf, size_t len)
{
	int pfd[2];
	pid_t child;
	ssize_t n = -2;
	struct pollfd p;

	if (pipe(pfd))
		return -1;
	child = fork();
	if (child == 0) {
		ssize_t got = read(fd, buf, len);

		if (write(pfd[1], &got, sizeof(got)) != sizeof(got) ||
		    (got > 0 && write(pfd[1], buf, (size_t)got) != got))
			_exit(1);
		_exit(0);
	}
	p = (struct pollfd){ .fd = pfd[0], .events = POLLIN };
	if (poll(&p, 1, 2000) == 1 && read(pfd[0], &n, sizeof(n)) == sizeof(n) && n > 0 &&
	    read(pfd[0], buf, (size_t)n) != n)
		n = -1;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pfd[0]);
	close(pfd[1]);
	return n;
}

/*
 * ICANON turned on while raw bytes wait: n_tty makes what is there a line
 * (n_tty_set_termios(): canon_head = read_head, push = 1), so the read
 * returns "abc" at once, without a newline.
 */
static const char *attack_icanon(void)
{
	unsigned char in[100];
	struct termios t;
	ssize_t n;
	int fd = open_raw(0);

	write_full(fd, "abc", 3);
	if (!readable(fd))
		return FAILED("the echo did not come");
	usleep(200000);
	tcgetattr(fd, &t);
	t.c_lflag |= ICANON;
	tcsetattr(fd, TCSANOW, &t);
	n = read_within_2s(fd, in, sizeof(in));
	close(fd);
	if (n == -2)
		return FAILED("with ICANON turned on over \"abc\", read() waits for a line");
	if (n != 3 || memcmp(in, "abc", 3))
		return FAILED("with ICANON turned on over \"abc\", read() returned %zd", n);
	return NULL;
}

/*
 * The handheld leaves while its echo waits unread (pushed to the kernel's
 * buffer, or in pilotd): the hung-up file reads the echo whole and then end
 * of file, on both paths alike; after it comes back, a new file reads its
 * own echo and nothing of the old one.
 */
static const char *attack_hangup(void)
{
	unsigned char out[256], in[512];
	size_t got = 0;
	const char *err;
	int fd = open_raw(0), b;

	pattern(out, sizeof(out), 500);
	write_full(fd, out, sizeof(out));
	if (!readable(fd))
		return FAILED("the echo did not come");
	usleep(300000);
	palm("unplug");
	sleep(1);
	for (;;) {
		ssize_t n = read_within_2s(fd, in + got, sizeof(in) - got);

		if (n == -2)
			return FAILED("a read of the hung-up file waits after %zu bytes", got);
		if (n < 0)
			return FAILED("a read of the hung-up file failed after %zu bytes", got);
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != sizeof(out) || memcmp(in, out, sizeof(out)))
		return FAILED("the hung-up file read %zu bytes before end of file, of the %zu of "
			      "its echo",
			      got, sizeof(out));
	palm("plug");
	b = open_raw(0);
	if ((err = echo_with(b, ECHO_LEN, 501, read_plain)))
		return FAILED("after the handheld came back: %s", err);
	err = quiet(b);
	close(b);
	return err;
}

/* pilotd's CPU time so far, in clock ticks (utime + stime of /proc/PID/stat). */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	long utime, stime;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	p = f && fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	if (f)
		fclose(f);
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime,
			 &stime) != 2)
		return -1;
	return utime + stime;
}

#define STALL_BYTES (3 * 4096)

/*
 * An echo of 12 KiB that nobody reads for 2 s: the kernel's buffer of the
 * file fills (4096 bytes), pushes are refused for room (ENOSPC) and the
 * rest waits in pilotd.  pilotd must not spin on the refusals (at most 0.2
 * s of CPU in the 2 s), and the reads that follow, from the kernel's
 * buffer and then as requests, must get every byte in order.
 */
static const char *attack_stall(void)
{
	static unsigned char out[STALL_BYTES], in[STALL_BYTES];
	pid_t pilotd = find_pilotd();
	unsigned int seed = 5;
	size_t got = 0;
	long t0, spent;
	int fd = open_raw(0);

	pattern(out, sizeof(out), 400);
	write_full(fd, out, sizeof(out));
	if (!readable(fd))
		return FAILED("the echo did not come");
	usleep(500000);
	t0 = cpu_ticks(pilotd);
	sleep(2);
	spent = cpu_ticks(pilotd) - t0;
	while (got < sizeof(in)) {
		ssize_t n;

		if (!readable(fd))
			return FAILED("no input within 5 s after %zu of %d bytes", got,
				      STALL_BYTES);
		n = read(fd, in + got, min_size_t(sizeof(in) - got, 1 + rand_r(&seed) % 3000));
		if (n <= 0)
			return FAILED("read: %zd after %zu bytes", n, got);
		got += (size_t)n;
	}
	close(fd);
	for (size_t i = 0; i < sizeof(in); i++)
		if (in[i] != out[i])
			return FAILED("byte %zu of the stalled echo is 0x%02x, sent 0x%02x", i,
				      in[i], out[i]);
	note("stall: pilotd used %ld clock ticks in 2 s with the kernel's buffer full", spent);
	if (t0 < 0 || spent > 20)
		return FAILED("pilotd used %ld clock ticks of CPU in 2 s with nothing to do but "
			      "wait for room",
			      spent);
	return NULL;
}

static const struct guest_attack attacks[] = {
	{ "session", attack_session },
	{ "tiny", attack_tiny },
	{ "huge", attack_huge },
	{ "readv", attack_readv },
	{ "nonblock", attack_nonblock },
	{ "aio", attack_aio },
	{ "uring", attack_uring },
	{ "kill-reader", attack_kill_reader },
	{ "fork-readers", attack_fork_readers },
	{ "many-opens", attack_many_opens },
	{ "aio-close", attack_aio_close },
	{ "stall", attack_stall },
	{ "hangup", attack_hangup },
	{ "vmin", attack_vmin },
	{ "tcflush", attack_tcflush },
	{ "icanon", attack_icanon },
};

/* pilotd's exit lines: bytes it pushed to the kernel, take-backs and their bytes. */
static unsigned long long bytes_pushed(unsigned long long *take_backs,
				       unsigned long long *bytes_back)
{
	FILE *f = fopen(LOG_PATH, "r");
	unsigned long long requests, bytes = 0;
	char line[512];

	*take_backs = *bytes_back = 0;
	while (f && fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, "reads: ");
		const char *back = strstr(line, "input taken back: ");

		if (at)
			sscanf(at, "reads: %llu came as requests; input kept by the kernel: %llu",
			       &requests, &bytes);
		if (back)
			sscanf(back, "input taken back: %llu take-backs, %llu bytes back",
			       take_backs, bytes_back);
	}
	if (f)
		fclose(f);
	return bytes;
}

/* Were the attacks that need a take-back (vmin, tcflush) run? All run with none named. */
static bool take_back_asked(char **names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], "vmin") || !strcmp(names[i], "tcflush"))
			return true;
	return n == 0;
}

int main(int argc, char **argv)
{
	bool declined = argc > 1 && strcmp(argv[1], "--declined") == 0;
	int first = declined ? 2 : 1, failed;
	unsigned long long pushed, take_backs, bytes_back;
	pid_t pid;

	guest_test_name("stream-client-attack");
	pid = start_own_pilotd(LOG_PATH, declined ? "--no-stream-data" : NULL);
	failed = run_attacks(attacks, sizeof(attacks) / sizeof(attacks[0]), argv + first,
			     argc - first, ATTACK_S);
	stop_own_pilotd(pid);
	pushed = bytes_pushed(&take_backs, &bytes_back);
	note("%d attacks failed; pilotd pushed %llu bytes to the kernel, took back %llu "
	     "bytes in %llu take-backs", failed, pushed, bytes_back, take_backs);
	/* vmin and tcflush pass on the take-back alone: it must have run */
	if (!declined && take_back_asked(argv + first, argc - first) && !take_backs)
		fail("pilotd took nothing back: vmin and tcflush did not reach the kernel's buffer");
	if (declined && take_backs)
		fail("pilotd took bytes back with --no-stream-data");
	if (!pushed && !declined)
		fail("pilotd pushed nothing: the attacks did not reach the kernel's buffer");
	if (pushed && declined)
		fail("pilotd pushed %llu bytes with --no-stream-data", pushed);
	return failed ? 1 : 0;
}
