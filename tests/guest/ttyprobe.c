// SPDX-License-Identifier: MIT
/*
 * ttyprobe: one fixed list of probes against a terminal, one line per
 * probe: "name: observable result" (return values, errno names, values
 * read back, bytes seen; times only as coarse buckets).  Run on the
 * kernel's visor tty and on /dev/pilot in the same boot, the two outputs
 * are compared by tty-compare against docs/tty-differences.md.
 *
 *   ttyprobe [--compat-only] [--list] PATH
 *
 * The simulated Palm (palmctl's control channel) sends the handheld's bytes
 * and counts what it receives; it is in sink mode between probes, so that
 * an echoing terminal never plays ping-pong with an echoing handheld.  The
 * last probes take the handheld off the bus and put it back.  Built also as
 * a 32-bit static program (ttyprobe32); --compat-only then runs the probes
 * whose ioctls have a compat form.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/serial.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"

/* the kernel's structures; glibc's <termios.h> has other ones */
struct k_termios {
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[19];
};
struct k_termios2 {
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[19];
	unsigned int c_ispeed, c_ospeed;
};
struct k_termio {
	unsigned short c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[8];
};
#define K_TCGETS2  _IOR('T', 0x2A, struct k_termios2)
#define K_TCSETS2  _IOW('T', 0x2B, struct k_termios2)
#define K_BOTHER   0010000u
#define K_CBAUD	   0010017u
#define K_IBSHIFT  16
#define USER_UID   1000
#define DIALOUT	   20
#define QUIET_MS   300 /* a read collection ends after this long without bytes */
#define RESULT_MAX 1024

static const char *path;
static struct k_termios2 initial;
static char result[RESULT_MAX];
static void *volatile bad_pointer = (void *)16; /* hidden from the compiler's checks */

/* ---- output ---- */

/* for calls whose result a later probe step observes instead */
static void ignore(long r)
{
	(void)r;
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	size_t len = strlen(result);
	va_list ap;

	if (len && len < sizeof(result) - 1)
		result[len++] = ' ';
	va_start(ap, fmt);
	vsnprintf(result + len, sizeof(result) - len, fmt, ap);
	va_end(ap);
}

static const char *errname(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },   { ENOENT, "ENOENT" },	    { EINTR, "EINTR" },
		{ EIO, "EIO" },	      { ENXIO, "ENXIO" },	    { EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" }, { EACCES, "EACCES" },	    { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" },   { ENODEV, "ENODEV" },	    { EINVAL, "EINVAL" },
		{ ENOTTY, "ENOTTY" }, { ESPIPE, "ESPIPE" },	    { ENOSYS, "ENOSYS" },
		{ EROFS, "EROFS" },   { EOPNOTSUPP, "EOPNOTSUPP" }, { ENOSPC, "ENOSPC" },
	};
	static char other[16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(other, sizeof(other), "E%d", e);
	return other;
}

/* "label=N" or "label=ENAME" for a call that returned r with errno e */
static void ret(const char *label, long r, int e)
{
	if (r < 0)
		out("%s=%s", label, errname(e));
	else
		out("%s=%ld", label, r);
}

#define CALL(label, expr)                                                                          \
	do {                                                                                       \
		errno = 0;                                                                         \
		long r_ = (long)(expr);                                                            \
		ret(label, r_, errno);                                                             \
	} while (0)

/* bytes as text: printable ASCII as is, the rest as \xNN */
static void out_bytes(const char *label, const uint8_t *b, size_t n)
{
	char s[400];
	size_t k = 0;

	for (size_t i = 0; i < n && k + 5 < sizeof(s); i++) {
		if (b[i] > 0x20 && b[i] < 0x7f && b[i] != '\\')
			s[k++] = (char)b[i];
		else
			k += (size_t)snprintf(s + k, sizeof(s) - k, "\\x%02x", b[i]);
	}
	s[k] = '\0';
	out("%s=\"%s\"", label, s);
}

static const char *bucket(double s)
{
	/* a loaded host slows the guest kernel's timers: VTIME 5 took 0.5 to over 4 s */
	return s < 0.25 ? "now" : s < 12.0 ? "waited" : "long";
}

/* ---- the device and the handheld ---- */

static int dev_open(int flags)
{
	return open(path, flags | O_NOCTTY | O_CLOEXEC);
}

/*
 * Open read-write and blocking, or end the run: every probe needs one.
 * It polls once, as a desktop does before it waits for the handheld:
 * /dev/pilot takes the handheld's bytes from then on, a tty from the open
 * (probe open_flush_in has the difference).
 */
static int dev(void)
{
	int fd = dev_open(O_RDWR | O_NONBLOCK);
	struct pollfd p = { .events = POLLIN };

	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	p.fd = fd;
	poll(&p, 1, 0);
	fcntl(fd, F_SETFL, 0);
	return fd;
}

static void get2(int fd, struct k_termios2 *t)
{
	memset(t, 0, sizeof(*t));
	if (ioctl(fd, K_TCGETS2, t) < 0)
		fail("TCGETS2: %s", strerror(errno));
}

static void set2(int fd, const struct k_termios2 *t)
{
	if (ioctl(fd, K_TCSETS2, t) < 0)
		fail("TCSETS2: %s", strerror(errno));
}

static void out_termios(const struct k_termios2 *t)
{
	char cc[19 * 3 + 1] = "";

	for (int i = 0; i < 19; i++)
		snprintf(cc + strlen(cc), sizeof(cc) - strlen(cc), "%s%x", i ? "," : "",
			 t->c_cc[i]);
	out("i=%o o=%o c=%o l=%o line=%u cc=%s ispeed=%u ospeed=%u", t->c_iflag, t->c_oflag,
	    t->c_cflag, t->c_lflag, t->c_line, cc, t->c_ispeed, t->c_ospeed);
}

/* A raw terminal: no processing either way, VMIN 1, VTIME 0. */
static void make_raw(int fd, unsigned int iflag, unsigned int oflag, unsigned int lflag)
{
	struct k_termios2 t = initial;

	t.c_iflag = iflag;
	t.c_oflag = oflag;
	t.c_lflag = lflag;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	set2(fd, &t);
}

static void restore(int fd)
{
	set2(fd, &initial);
	ioctl(fd, TCFLSH, TCIOFLUSH);
}

static void done(int fd)
{
	restore(fd);
	close(fd);
}

static void palm_mode(const char *mode)
{
	palm("mode %s", mode);
}

/* The handheld sends these bytes; returns once the tty has had time to take them. */
static void handheld_sends(const char *hex)
{
	size_t n = strlen(hex) / 2;

	palm("reset-stats");
	palm("send %s", hex);
	palm_wait_stat("in_bytes", n, 10);
	usleep(200000);
}

/* What the handheld received since the last reset-stats. */
static void out_handheld_got(void)
{
	usleep(300000);
	out("handheld_got=%" PRIu64 "/%016" PRIx64, palm_stat("out_bytes"), palm_stat("out_fnv"));
}

/* ---- timeouts ---- */

static void on_alarm(int sig)
{
	(void)sig;
}

static void on_sigio(int sig)
{
	(void)sig;
}

/* SIGALRM after ms, interrupting a blocking call (no SA_RESTART) */
static void arm(int ms)
{
	struct itimerval it = { .it_value = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm(void)
{
	struct itimerval it = { 0 };

	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * Read what comes, one read() per piece, until QUIET_MS pass without bytes,
 * end of file, an error, or eight reads (64 when the pieces do not matter):
 * the bytes, and with pieces_matter the size of each read ("reads=3+3").
 */
static void collect_as(int fd, const char *label, bool pieces_matter)
{
	uint8_t all[512];
	char pieces[64] = "";
	size_t n = 0;
	int reads = 0;

	while (reads < (pieces_matter ? 8 : 64) && n < sizeof(all)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, QUIET_MS) != 1)
			break;
		arm(1000);
		r = read(fd, all + n, sizeof(all) - n);
		disarm();
		reads++;
		if (r <= 0) {
			out("%s_end=%s", label, r == 0 ? "eof" : errname(errno));
			break;
		}
		n += (size_t)r;
		snprintf(pieces + strlen(pieces), sizeof(pieces) - strlen(pieces), "%s%zd",
			 reads > 1 ? "+" : "", r);
	}
	if (pieces_matter)
		out("%s_reads=%s", label, pieces[0] ? pieces : "none");
	out_bytes(label, all, n);
}

/* Bytes that were there before the first read: each read's size counts (lines). */
static void collect(int fd, const char *label)
{
	collect_as(fd, label, true);
}

/* Bytes the handheld echoes while we read: how USB packets them varies. */
static void collect_echo(int fd, const char *label)
{
	collect_as(fd, label, false);
}

/* ---- running as someone else ---- */

/* Runs fn in a child as uid 1000 in the dialout group; its result is printed. */
static void as_user(void (*fn)(void))
{
	int pipefd[2];
	pid_t pid;
	char buf[RESULT_MAX] = "";
	ssize_t n;

	if (pipe(pipefd) < 0)
		fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		gid_t g = DIALOUT;

		result[0] = '\0';
		if (setgroups(1, &g) < 0 || setgid(DIALOUT) < 0 || setuid(USER_UID) < 0)
			out("setuid_failed");
		else
			fn();
		if (write(pipefd[1], result, strlen(result)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	out("%s", n > 0 ? buf : "child-said-nothing");
}

/* ---- open and identity ---- */

static void p_open_flags(int flags)
{
	int fd = dev_open(flags);

	ret("open", fd < 0 ? -1 : 0, errno);
	if (fd >= 0) {
		out("flags=%o", fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK | O_APPEND));
		close(fd);
	}
}

static void p_open_rdwr(void)
{
	p_open_flags(O_RDWR);
}
static void p_open_rdonly(void)
{
	p_open_flags(O_RDONLY);
}
static void p_open_wronly(void)
{
	p_open_flags(O_WRONLY);
}
static void p_open_nonblock(void)
{
	p_open_flags(O_RDWR | O_NONBLOCK);
}
static void p_open_append(void)
{
	p_open_flags(O_RDWR | O_APPEND);
}
static void p_open_trunc(void)
{
	p_open_flags(O_RDWR | O_TRUNC);
}

static void p_open_second(void)
{
	int a = dev(), b = dev_open(O_RDWR | O_NONBLOCK);

	ret("second_open", b < 0 ? -1 : 0, errno);
	if (b >= 0)
		close(b);
	CALL("first_still_tcgets", ioctl(a, TCGETS, &(struct k_termios){ 0 }));
	close(a);
}

static void p_isatty(void)
{
	int fd = dev();

	out("isatty=%d", isatty(fd));
	close(fd);
}

static void p_ttyname(void)
{
	int fd = dev();
	char *name = ttyname(fd);

	if (!name)
		out("ttyname=%s", errname(errno));
	else
		out("ttyname=%s", strcmp(name, path) == 0 ? "the-path" : "another-name");
	close(fd);
}

static void p_fstat(void)
{
	int fd = dev();
	struct stat st;

	CALL("fstat", fstat(fd, &st));
	out("chr=%d mode=%o", S_ISCHR(st.st_mode), st.st_mode & 07777);
	close(fd);
}

static void p_ctty(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		/* a session leader without a terminal opens one without O_NOCTTY */
		setsid();
		int fd = open(path, O_RDWR | O_NONBLOCK);
		pid_t sid = fd < 0 ? -1 : tcgetsid(fd);

		_exit(fd < 0 ? 1 : sid == getpid() ? 2 : 3);
	}
	waitpid(pid, &status, 0);
	out("%s", WEXITSTATUS(status) == 2   ? "became-ctty"
		  : WEXITSTATUS(status) == 3 ? "not-ctty"
					     : "open-failed");
}

static void p_tiocsctty(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int fd;

		setsid();
		fd = dev();
		errno = 0;
		_exit(ioctl(fd, TIOCSCTTY, 0) < 0 ? errno : 0);
	}
	waitpid(pid, &status, 0);
	out("tiocsctty=%s", WEXITSTATUS(status) ? errname(WEXITSTATUS(status)) : "0");
}

static void p_tiocgsid(void)
{
	int fd = dev(), sid = 0;

	CALL("tiocgsid", ioctl(fd, TIOCGSID, &sid));
	CALL("tiocgpgrp", ioctl(fd, TIOCGPGRP, &sid));
	CALL("tiocnotty", ioctl(fd, TIOCNOTTY));
	close(fd);
}

/* ---- termios ---- */

static void p_termios_initial(void)
{
	out_termios(&initial);
}

static void p_tcgets(void)
{
	int fd = dev();
	struct k_termios t;

	memset(&t, 0xa5, sizeof(t));
	CALL("tcgets", ioctl(fd, TCGETS, &t));
	out("i=%o o=%o c=%o l=%o line=%u", t.c_iflag, t.c_oflag, t.c_cflag, t.c_lflag, t.c_line);
	close(fd);
}

/* Set one field of termios2 through TCSETS2 and print what reads back. */
static void set_field(unsigned int *field_of_new, unsigned int value)
{
	int fd = dev();
	struct k_termios2 t = initial, back;
	size_t off = (size_t)((char *)field_of_new - (char *)&initial);

	memcpy((char *)&t + off, &value, sizeof(value));
	CALL("tcsets2", ioctl(fd, K_TCSETS2, &t));
	get2(fd, &back);
	out_termios(&back);
	done(fd);
}

/* Set c_cflag through TCSETS (struct termios): clear, then set bits. */
static void set_cflag(unsigned int clear, unsigned int set)
{
	int fd = dev();
	struct k_termios t;
	struct k_termios2 back;

	ioctl(fd, TCGETS, &t);
	t.c_cflag = (t.c_cflag & ~clear) | set;
	CALL("tcsets", ioctl(fd, TCSETS, &t));
	get2(fd, &back);
	out("c=%o ispeed=%u ospeed=%u", back.c_cflag, back.c_ispeed, back.c_ospeed);
	done(fd);
}

#define IFLAG_ALL                                                                                  \
	(IGNBRK | BRKINT | IGNPAR | PARMRK | INPCK | ISTRIP | INLCR | IGNCR | ICRNL | IUCLC |      \
	 IXON | IXANY | IXOFF | IMAXBEL | IUTF8)
#define OFLAG_ALL                                                                                  \
	(OPOST | OLCUC | ONLCR | OCRNL | ONOCR | ONLRET | OFILL | OFDEL | NLDLY | CRDLY | TABDLY | \
	 BSDLY | VTDLY | FFDLY)
#define LFLAG_ALL                                                                                  \
	(ISIG | ICANON | XCASE | ECHO | ECHOE | ECHOK | ECHONL | NOFLSH | TOSTOP | ECHOCTL |       \
	 ECHOPRT | ECHOKE | FLUSHO | PENDIN | IEXTEN | EXTPROC)

static void p_iflag_all(void)
{
	set_field(&initial.c_iflag, IFLAG_ALL);
}
static void p_iflag_none(void)
{
	set_field(&initial.c_iflag, 0);
}
static void p_oflag_all(void)
{
	set_field(&initial.c_oflag, OFLAG_ALL);
}
static void p_oflag_none(void)
{
	set_field(&initial.c_oflag, 0);
}
static void p_lflag_all(void)
{
	set_field(&initial.c_lflag, LFLAG_ALL);
}
static void p_lflag_none(void)
{
	set_field(&initial.c_lflag, 0);
}
static void p_cflag_cs5(void)
{
	set_cflag(CSIZE, CS5);
}
static void p_cflag_cs6(void)
{
	set_cflag(CSIZE, CS6);
}
static void p_cflag_cs7(void)
{
	set_cflag(CSIZE, CS7);
}
static void p_cflag_cstopb(void)
{
	set_cflag(0, CSTOPB);
}
static void p_cflag_parenb(void)
{
	set_cflag(0, PARENB);
}
static void p_cflag_parodd(void)
{
	set_cflag(0, PARENB | PARODD);
}
static void p_cflag_cmspar(void)
{
	set_cflag(0, PARENB | CMSPAR);
}
static void p_cflag_crtscts(void)
{
	set_cflag(0, CRTSCTS);
}
static void p_cflag_hupcl_off(void)
{
	set_cflag(HUPCL, 0);
}
static void p_cflag_clocal_off(void)
{
	set_cflag(CLOCAL, 0);
}
static void p_cflag_cread_off(void)
{
	set_cflag(CREAD, 0);
}
static void p_cflag_b115200(void)
{
	set_cflag(K_CBAUD, B115200);
}
static void p_cflag_b0(void)
{
	set_cflag(K_CBAUD, B0);
}
static void p_cflag_b50(void)
{
	set_cflag(K_CBAUD, B50);
}
static void p_cflag_cibaud(void)
{
	set_cflag(K_CBAUD << K_IBSHIFT, B19200 << K_IBSHIFT);
}

static void p_cc_all(void)
{
	int fd = dev();
	struct k_termios2 t = initial, back;

	for (int i = 0; i < 19; i++)
		t.c_cc[i] = (unsigned char)(0x40 + i);
	CALL("tcsets2", ioctl(fd, K_TCSETS2, &t));
	get2(fd, &back);
	out_termios(&back);
	done(fd);
}

static void p_c_line(void)
{
	int fd = dev();
	struct k_termios2 t = initial, back;
	int ldisc = -1;

	t.c_line = 5;
	CALL("tcsets2", ioctl(fd, K_TCSETS2, &t));
	get2(fd, &back);
	ioctl(fd, TIOCGETD, &ldisc);
	out("line=%u ldisc=%d", back.c_line, ldisc);
	done(fd);
}

/* glibc's tcsetattr() with cfsetospeed()/cfsetispeed() */
static void glibc_speeds(speed_t ispeed, speed_t ospeed)
{
	int fd = dev();
	struct termios t;

	tcgetattr(fd, &t);
	cfsetospeed(&t, ospeed);
	cfsetispeed(&t, ispeed);
	CALL("tcsetattr", tcsetattr(fd, TCSANOW, &t));
	tcgetattr(fd, &t);
	out("ospeed=%u ispeed=%u", (unsigned int)cfgetospeed(&t), (unsigned int)cfgetispeed(&t));
	done(fd);
}

static void p_speed_115200(void)
{
	glibc_speeds(B115200, B115200);
}
static void p_speed_split(void)
{
	glibc_speeds(B19200, B57600);
}

static void p_termios2_bother(void)
{
	int fd = dev();
	struct k_termios2 t = initial, back;

	t.c_cflag = (t.c_cflag & ~K_CBAUD) | K_BOTHER;
	t.c_ospeed = t.c_ispeed = 12345;
	CALL("tcsets2", ioctl(fd, K_TCSETS2, &t));
	get2(fd, &back);
	out("c=%o ispeed=%u ospeed=%u", back.c_cflag, back.c_ispeed, back.c_ospeed);
	done(fd);
}

static void p_termios2_bother_in(void)
{
	int fd = dev();
	struct k_termios2 t = initial, back;

	t.c_cflag = (t.c_cflag & ~(K_CBAUD << K_IBSHIFT)) | (K_BOTHER << K_IBSHIFT);
	t.c_ispeed = 4321;
	CALL("tcsets2", ioctl(fd, K_TCSETS2, &t));
	get2(fd, &back);
	out("c=%o ispeed=%u ospeed=%u", back.c_cflag, back.c_ispeed, back.c_ospeed);
	done(fd);
}

static void p_termio_get(void)
{
	int fd = dev();
	struct k_termio t;

	memset(&t, 0xa5, sizeof(t));
	CALL("tcgeta", ioctl(fd, TCGETA, &t));
	out("i=%o o=%o c=%o l=%o line=%u cc=%x,%x,%x,%x,%x,%x,%x,%x", t.c_iflag, t.c_oflag,
	    t.c_cflag, t.c_lflag, t.c_line, t.c_cc[0], t.c_cc[1], t.c_cc[2], t.c_cc[3], t.c_cc[4],
	    t.c_cc[5], t.c_cc[6], t.c_cc[7]);
	close(fd);
}

static void termio_set(unsigned long cmd)
{
	int fd = dev();
	struct k_termio t;
	struct k_termios2 back;

	ioctl(fd, TCGETA, &t);
	t.c_lflag = 0;
	t.c_iflag = IGNPAR;
	t.c_cflag = (unsigned short)((t.c_cflag & ~K_CBAUD) | B38400 | CS7);
	t.c_cc[VMIN] = 3;
	CALL("set", ioctl(fd, cmd, &t));
	get2(fd, &back);
	out_termios(&back);
	done(fd);
}

static void p_termio_tcseta(void)
{
	termio_set(TCSETA);
}
static void p_termio_tcsetaw(void)
{
	termio_set(TCSETAW);
}
static void p_termio_tcsetaf(void)
{
	termio_set(TCSETAF);
}

static void p_tcsetsw(void)
{
	int fd = dev(), n = -1;
	struct k_termios t;

	make_raw(fd, 0, 0, 0);
	ignore(write(fd, "0123456789", 10));
	ioctl(fd, TCGETS, &t);
	t.c_cc[VTIME] = 7;
	CALL("tcsetsw", ioctl(fd, TCSETSW, &t));
	ioctl(fd, TIOCOUTQ, &n);
	out("outq=%d", n);
	out_handheld_got();
	done(fd);
}

/*
 * What the handheld said right after the open, before the desktop asked:
 * a tty has taken it and tcflush(TCIFLUSH) discards it; /dev/pilot takes
 * bytes only once the file reads, polls or asks FIONREAD, so the flush a
 * serial library does right after open keeps the handheld's first words.
 */
static void p_open_flush_in(void)
{
	int fd;

	/* right after return: a handheld that nobody has read from yet */
	fd = dev_open(O_RDWR | O_NONBLOCK);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	/* termios as the device had it: return_termios reads it next */
	palm("reset-stats");
	palm("send %s", "6669727374");
	sleep(1);
	out("taken_at_open=%" PRIu64, palm_stat("in_bytes"));
	CALL("tcflush_in", ioctl(fd, TCFLSH, TCIFLUSH));
	fcntl(fd, F_SETFL, 0);
	/* the first poll starts /dev/pilot's reading: give the bytes time */
	poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 5000);
	collect(fd, "read");
	close(fd);
}

static void p_tcsetsf(void)
{
	int fd = dev(), n = -1;
	struct k_termios t;

	make_raw(fd, 0, 0, 0);
	handheld_sends("6162636465");
	ioctl(fd, FIONREAD, &n);
	out("fionread_before=%d", n);
	ioctl(fd, TCGETS, &t);
	CALL("tcsetsf", ioctl(fd, TCSETSF, &t));
	ioctl(fd, FIONREAD, &n);
	out("fionread_after=%d", n);
	done(fd);
}

static void p_tcsets_efault(void)
{
	int fd = dev();

	CALL("tcsets", ioctl(fd, TCSETS, bad_pointer));
	CALL("tcgets", ioctl(fd, TCGETS, bad_pointer));
	close(fd);
}

/* ---- drain, flush, flow, break ---- */

static void p_tcdrain_idle(void)
{
	int fd = dev();

	CALL("tcdrain", tcdrain(fd));
	close(fd);
}

static void p_tcdrain_data(void)
{
	int fd = dev();
	char buf[2048];

	memset(buf, 'd', sizeof(buf));
	make_raw(fd, 0, 0, 0);
	palm("reset-stats");
	CALL("write", write(fd, buf, sizeof(buf)));
	CALL("tcdrain", tcdrain(fd));
	out("handheld_had=%" PRIu64, palm_stat("out_bytes"));
	done(fd);
}

static void flush_probe(int queue)
{
	int fd = dev(), n = -1;

	make_raw(fd, 0, 0, 0);
	handheld_sends("717273");
	CALL("tcflush", tcflush(fd, queue));
	ioctl(fd, FIONREAD, &n);
	out("fionread=%d", n);
	ioctl(fd, TIOCOUTQ, &n);
	out("outq=%d", n);
	done(fd);
}

static void p_tcflush_in(void)
{
	flush_probe(TCIFLUSH);
}
static void p_tcflush_out(void)
{
	flush_probe(TCOFLUSH);
}
static void p_tcflush_both(void)
{
	flush_probe(TCIOFLUSH);
}
static void p_tcflush_bad(void)
{
	flush_probe(7);
}

static void p_tcflow_ooff(void)
{
	int fd = dev(), n = -1;

	make_raw(fd, 0, 0, 0);
	palm("reset-stats");
	CALL("tcooff", tcflow(fd, TCOOFF));
	fcntl(fd, F_SETFL, O_NONBLOCK);
	CALL("write", write(fd, "stopped", 7));
	usleep(300000);
	out("handheld_had=%" PRIu64, palm_stat("out_bytes"));
	ioctl(fd, TIOCOUTQ, &n);
	out("outq=%d", n);
	CALL("tcoon", tcflow(fd, TCOON));
	usleep(300000);
	out("handheld_had=%" PRIu64, palm_stat("out_bytes"));
	done(fd);
}

static void tcflow_in(int action)
{
	int fd = dev();

	make_raw(fd, 0, 0, 0);
	palm("reset-stats");
	CALL("tcflow", tcflow(fd, action));
	out_handheld_got();
	done(fd);
}

static void p_tcflow_ioff(void)
{
	tcflow_in(TCIOFF);
}
static void p_tcflow_ion(void)
{
	tcflow_in(TCION);
}
static void p_tcflow_bad(void)
{
	tcflow_in(9);
}

static void p_tcsendbreak(void)
{
	int fd = dev();

	CALL("tcsendbreak", tcsendbreak(fd, 0));
	CALL("tcsbrkp", ioctl(fd, TCSBRKP, 1));
	CALL("tiocsbrk", ioctl(fd, TIOCSBRK));
	CALL("tioccbrk", ioctl(fd, TIOCCBRK));
	close(fd);
}

/* ---- modem lines ---- */

static void p_tiocmget(void)
{
	int fd = dev(), v = 0;

	CALL("tiocmget", ioctl(fd, TIOCMGET, &v));
	out("lines=%x", v);
	close(fd);
}

static void modem_set(unsigned long cmd, int bits)
{
	int fd = dev(), v = 0;

	CALL("set", ioctl(fd, cmd, &bits));
	CALL("tiocmget", ioctl(fd, TIOCMGET, &v));
	out("lines=%x", v);
	close(fd);
}

static void p_tiocmbic_dtr(void)
{
	modem_set(TIOCMBIC, TIOCM_DTR);
}
static void p_tiocmbis_dtr(void)
{
	modem_set(TIOCMBIS, TIOCM_DTR);
}
static void p_tiocmset_none(void)
{
	modem_set(TIOCMSET, 0);
}
static void p_tiocmset_all(void)
{
	modem_set(TIOCMSET, 0x1ff);
}

static void miwait(int mask)
{
	int fd = dev();
	double t0 = now_s();

	arm(700);
	CALL("tiocmiwait", ioctl(fd, TIOCMIWAIT, mask));
	disarm();
	out("after=%s", bucket(now_s() - t0));
	close(fd);
}

static void p_tiocmiwait_cd(void)
{
	miwait(TIOCM_CD);
}
static void p_tiocmiwait_rng(void)
{
	miwait(TIOCM_RNG);
}
static void p_tiocmiwait_zero(void)
{
	miwait(0);
}

static void p_tiocgicount(void)
{
	int fd = dev();
	struct serial_icounter_struct a = { 0 }, b = { 0 };
	uint8_t buf[16];

	make_raw(fd, 0, 0, 0);
	CALL("tiocgicount", ioctl(fd, TIOCGICOUNT, &a));
	handheld_sends("0102030405060708");
	ignore(read(fd, buf, sizeof(buf)));
	ignore(write(fd, "abcde", 5));
	tcdrain(fd);
	CALL("tiocgicount", ioctl(fd, TIOCGICOUNT, &b));
	out("d_rx=%d d_tx=%d d_cts=%d d_dsr=%d d_rng=%d d_dcd=%d frame=%d overrun=%d "
	    "parity=%d brk=%d buf_overrun=%d",
	    b.rx - a.rx, b.tx - a.tx, b.cts - a.cts, b.dsr - a.dsr, b.rng - a.rng, b.dcd - a.dcd,
	    b.frame, b.overrun, b.parity, b.brk, b.buf_overrun);
	done(fd);
}

/* ---- serial_struct ---- */

static void out_serial(const struct serial_struct *ss, int fd)
{
	struct stat st;
	int minor_line = fstat(fd, &st) == 0 && (unsigned int)ss->line == minor(st.st_rdev);

	out("type=%d line=%s port=%u irq=%d flags=%x fifo=%d divisor=%d baud_base=%d "
	    "close_delay=%u io_type=%d closing_wait=%u",
	    ss->type, minor_line ? "minor" : "other", ss->port, ss->irq, ss->flags,
	    ss->xmit_fifo_size, ss->custom_divisor, ss->baud_base, ss->close_delay, ss->io_type,
	    ss->closing_wait);
}

static void p_tiocgserial(void)
{
	int fd = dev();
	struct serial_struct ss;

	memset(&ss, 0, sizeof(ss));
	CALL("tiocgserial", ioctl(fd, TIOCGSERIAL, &ss));
	out_serial(&ss, fd);
	close(fd);
}

static void sserial(int fd, void (*change)(struct serial_struct *))
{
	struct serial_struct ss, back;

	memset(&ss, 0, sizeof(ss));
	memset(&back, 0, sizeof(back));
	ioctl(fd, TIOCGSERIAL, &ss);
	change(&ss);
	CALL("tiocsserial", ioctl(fd, TIOCSSERIAL, &ss));
	ioctl(fd, TIOCGSERIAL, &back);
	out("closing_wait=%u close_delay=%u flags=%x", back.closing_wait, back.close_delay,
	    back.flags);
}

static void ss_same(struct serial_struct *ss)
{
	(void)ss;
}
static void ss_closing_wait(struct serial_struct *ss)
{
	ss->closing_wait = 100;
}
static void ss_closing_none(struct serial_struct *ss)
{
	ss->closing_wait = 65535;
}
static void ss_close_delay(struct serial_struct *ss)
{
	ss->close_delay = 20;
}
static void ss_low_latency(struct serial_struct *ss)
{
	ss->flags |= ASYNC_LOW_LATENCY;
}
static void ss_reset(struct serial_struct *ss)
{
	ss->closing_wait = 3000;
	ss->close_delay = 50;
	ss->flags = 0;
}

static void sserial_probe(void (*change)(struct serial_struct *))
{
	int fd = dev();

	sserial(fd, change);
	sserial(fd, ss_reset);
	close(fd);
}

static void p_tiocsserial_same(void)
{
	sserial_probe(ss_same);
}
static void p_tiocsserial_closing_wait(void)
{
	sserial_probe(ss_closing_wait);
}
static void p_tiocsserial_closing_none(void)
{
	sserial_probe(ss_closing_none);
}
static void p_tiocsserial_close_delay(void)
{
	sserial_probe(ss_close_delay);
}
static void p_tiocsserial_low_latency(void)
{
	sserial_probe(ss_low_latency);
}

static void user_sserial_change(void)
{
	int fd = dev_open(O_RDWR | O_NONBLOCK);

	ret("open", fd < 0 ? -1 : 0, errno);
	if (fd >= 0)
		sserial(fd, ss_closing_wait);
}

static void user_sserial_same(void)
{
	int fd = dev_open(O_RDWR | O_NONBLOCK);

	ret("open", fd < 0 ? -1 : 0, errno);
	if (fd >= 0)
		sserial(fd, ss_low_latency);
}

static void p_tiocsserial_user(void)
{
	struct serial_struct ss;
	int fd;

	as_user(user_sserial_change);
	/* what the user may have changed, back as it was (not printed) */
	fd = dev();
	ioctl(fd, TIOCGSERIAL, &ss);
	ss_reset(&ss);
	ioctl(fd, TIOCSSERIAL, &ss);
	close(fd);
}

static void p_tiocsserial_user_same(void)
{
	as_user(user_sserial_same);
}

/* ---- queues, exclusivity, window size, STI, line discipline ---- */

static void p_fionread_empty(void)
{
	int fd = dev(), n = -1;

	CALL("fionread", ioctl(fd, FIONREAD, &n));
	out("n=%d", n);
	CALL("tiocoutq", ioctl(fd, TIOCOUTQ, &n));
	out("n=%d", n);
	close(fd);
}

static void p_fionread_data(void)
{
	int fd = dev(), n = -1;

	make_raw(fd, 0, 0, 0);
	handheld_sends("41424344454647484950");
	CALL("fionread", ioctl(fd, FIONREAD, &n));
	out("n=%d", n);
	CALL("tiocinq", ioctl(fd, TIOCINQ, &n));
	out("n=%d", n);
	done(fd);
}

static void p_fionread_canon(void)
{
	int fd = dev(), n = -1;

	make_raw(fd, 0, 0, ICANON);
	handheld_sends("6162630a6465");
	CALL("fionread", ioctl(fd, FIONREAD, &n));
	out("n=%d", n);
	done(fd);
}

static void user_open(void)
{
	int fd = dev_open(O_RDWR | O_NONBLOCK);

	ret("user_open", fd < 0 ? -1 : 0, errno);
	if (fd >= 0)
		close(fd);
}

static void p_tiocexcl(void)
{
	int fd = dev(), b, v = -1;

	CALL("tiocexcl", ioctl(fd, TIOCEXCL));
	CALL("tiocgexcl", ioctl(fd, TIOCGEXCL, &v));
	out("excl=%d", v);
	b = dev_open(O_RDWR | O_NONBLOCK);
	ret("root_open", b < 0 ? -1 : 0, errno);
	if (b >= 0)
		close(b);
	as_user(user_open);
	CALL("tiocnxcl", ioctl(fd, TIOCNXCL));
	as_user(user_open);
	close(fd);
}

static void p_winsize(void)
{
	int fd = dev();
	struct winsize w = { 0 }, set = { .ws_row = 24, .ws_col = 80, .ws_xpixel = 1 };

	CALL("tiocgwinsz", ioctl(fd, TIOCGWINSZ, &w));
	out("%ux%u", w.ws_row, w.ws_col);
	CALL("tiocswinsz", ioctl(fd, TIOCSWINSZ, &set));
	memset(&w, 0, sizeof(w));
	ioctl(fd, TIOCGWINSZ, &w);
	out("%ux%u+%u", w.ws_row, w.ws_col, w.ws_xpixel);
	set = (struct winsize){ 0 };
	ioctl(fd, TIOCSWINSZ, &set);
	close(fd);
}

static void p_tiocsti_root(void)
{
	int fd = dev();
	char c = 'z';

	make_raw(fd, 0, 0, 0);
	CALL("tiocsti", ioctl(fd, TIOCSTI, &c));
	fcntl(fd, F_SETFL, O_NONBLOCK);
	collect(fd, "read");
	done(fd);
}

static void user_sti(void)
{
	int fd = dev_open(O_RDWR | O_NONBLOCK);
	char c = 'z';

	if (fd < 0)
		ret("open", -1, errno);
	else
		CALL("tiocsti", ioctl(fd, TIOCSTI, &c));
}

static void p_tiocsti_user(void)
{
	as_user(user_sti);
}

/* tty_mode_ioctl(): the soft carrier is CLOCAL (issue 26 row 10) */
static void p_softcar(void)
{
	int fd = dev(), v = -1, off = 0, on = 1;
	struct k_termios t;

	CALL("tiocgsoftcar", ioctl(fd, TIOCGSOFTCAR, &v));
	out("softcar=%d", v);
	CALL("tiocssoftcar_off", ioctl(fd, TIOCSSOFTCAR, &off));
	ioctl(fd, TCGETS, &t);
	out("clocal=%d", !!(t.c_cflag & CLOCAL));
	CALL("tiocssoftcar_on", ioctl(fd, TIOCSSOFTCAR, &on));
	ioctl(fd, TCGETS, &t);
	out("clocal=%d", !!(t.c_cflag & CLOCAL));
	close(fd);
}

/* Locked settings: root locks ECHO, a TCSETS then keeps it (row 10) */
static void p_lcktrmios(void)
{
	int fd = dev();
	struct k_termios lock = { 0 }, got, t, none = { 0 };

	CALL("tiocglcktrmios", ioctl(fd, TIOCGLCKTRMIOS, &got));
	out("lflag=%#x", got.c_lflag);
	lock.c_lflag = ECHO;
	CALL("tiocslcktrmios", ioctl(fd, TIOCSLCKTRMIOS, &lock));
	ioctl(fd, TCGETS, &t);
	t.c_lflag ^= ECHO;
	CALL("tcsets", ioctl(fd, TCSETS, &t));
	ioctl(fd, TCGETS, &got);
	out("echo_kept=%d", (got.c_lflag & ECHO) != (t.c_lflag & ECHO));
	ioctl(fd, TIOCSLCKTRMIOS, &none);
	close(fd);
}

/* A lock is the tty's (tty_struct's termios_locked): gone after the last close. */
static void p_lcktrmios_close(void)
{
	int fd = dev();
	struct k_termios lock = { 0 }, got = { 0 }, none = { 0 };

	lock.c_lflag = ECHO;
	CALL("tiocslcktrmios", ioctl(fd, TIOCSLCKTRMIOS, &lock));
	close(fd);
	fd = dev();
	CALL("tiocglcktrmios", ioctl(fd, TIOCGLCKTRMIOS, &got));
	out("lflag_after_last_close=%#x", got.c_lflag);
	ioctl(fd, TIOCSLCKTRMIOS, &none);
	close(fd);
}

static void user_lcktrmios(void)
{
	int fd = dev_open(O_RDWR | O_NONBLOCK);
	struct k_termios lock = { 0 };

	if (fd < 0)
		ret("open", -1, errno);
	else
		CALL("tiocslcktrmios", ioctl(fd, TIOCSLCKTRMIOS, &lock));
}

static void p_lcktrmios_user(void)
{
	as_user(user_lcktrmios);
}

/* The tty's device number (major 188 on ttyUSB); docs/tty-differences.md */
static void p_tiocgdev(void)
{
	int fd = dev();
	unsigned int d = 0;

	CALL("tiocgdev", ioctl(fd, TIOCGDEV, &d));
	out("major=%u", major(d));
	close(fd);
}

static void p_ldisc(void)
{
	int fd = dev(), d = -1, ntty = 0, bad = 99;

	CALL("tiocgetd", ioctl(fd, TIOCGETD, &d));
	out("ldisc=%d", d);
	CALL("tiocsetd_ntty", ioctl(fd, TIOCSETD, &ntty));
	CALL("tiocsetd_99", ioctl(fd, TIOCSETD, &bad));
	close(fd);
}

static void p_unknown_ioctls(void)
{
	int fd = dev(), v = 0;

	CALL("x77", ioctl(fd, _IOR('X', 0x77, int), &v));
	CALL("tiocgptn", ioctl(fd, TIOCGPTN, &v));
	CALL("tiocserconfig", ioctl(fd, TIOCSERCONFIG));
	CALL("tiocsergetlsr", ioctl(fd, TIOCSERGETLSR, &v));
	CALL("tiocgrs485", ioctl(fd, TIOCGRS485, &(char[32]){ 0 }));
	close(fd);
}

static void p_fionbio(void)
{
	int fd = dev(), on = 1, off = 0;
	char c;

	CALL("fionbio_on", ioctl(fd, FIONBIO, &on));
	out("nonblock=%d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	make_raw(fd, 0, 0, 0);
	CALL("read", read(fd, &c, 1));
	CALL("fionbio_off", ioctl(fd, FIONBIO, &off));
	out("nonblock=%d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	done(fd);
}

static void p_fioasync(void)
{
	int fd = dev(), on = 1;
	sigset_t io, pending;

	/* blocked while the control channel is in use: a SIGIO would end its poll() */
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	sigprocmask(SIG_BLOCK, &io, NULL);
	signal(SIGIO, on_sigio);
	make_raw(fd, 0, 0, 0);
	fcntl(fd, F_SETOWN, getpid());
	CALL("fioasync", ioctl(fd, FIOASYNC, &on));
	out("async=%d", !!(fcntl(fd, F_GETFL) & O_ASYNC));
	handheld_sends("61");
	sigpending(&pending);
	out("sigio_on_input=%s", sigismember(&pending, SIGIO) ? "yes" : "no");
	on = 0;
	ioctl(fd, FIOASYNC, &on);
	signal(SIGIO, SIG_IGN); /* discards the pending one */
	sigprocmask(SIG_UNBLOCK, &io, NULL);
	done(fd);
}

static void p_fioclex(void)
{
	int fd = dev();

	CALL("fionclex", ioctl(fd, FIONCLEX));
	CALL("fioclex", ioctl(fd, FIOCLEX));
	out("cloexec=%d", fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

/* ---- file position ---- */

static void p_lseek(void)
{
	int fd = dev();

	CALL("set0", lseek(fd, 0, SEEK_SET));
	CALL("cur", lseek(fd, 0, SEEK_CUR));
	CALL("set10", lseek(fd, 10, SEEK_SET));
	CALL("end", lseek(fd, 0, SEEK_END));
	close(fd);
}

static void p_pread(void)
{
	int fd = dev();
	char c;

	make_raw(fd, 0, 0, 0);
	CALL("pread", pread(fd, &c, 1, 0));
	done(fd);
}

static void p_pwrite(void)
{
	int fd = dev();

	make_raw(fd, 0, 0, 0);
	palm("reset-stats");
	CALL("pwrite", pwrite(fd, "p", 1, 0));
	out_handheld_got();
	done(fd);
}

static void p_rw_zero(void)
{
	int fd = dev();
	char c;

	CALL("read0", read(fd, &c, 0));
	CALL("write0", write(fd, &c, 0));
	close(fd);
}

static void p_read_nonblock_empty(void)
{
	int fd = dev_open(O_RDWR | O_NONBLOCK);
	char c;

	make_raw(fd, 0, 0, 0);
	CALL("read", read(fd, &c, 1));
	done(fd);
}

static void p_read_efault(void)
{
	int fd = dev();

	make_raw(fd, 0, 0, 0);
	handheld_sends("4142");
	CALL("read", read(fd, bad_pointer, 2));
	CALL("write", write(fd, bad_pointer, 2));
	done(fd);
}

/* ---- VMIN/VTIME ---- */

static void vgrid(int vmin, int vtime, const char *hex)
{
	int fd = dev();
	struct k_termios2 t = initial;
	char buf[10];
	double t0;

	t.c_iflag = t.c_oflag = t.c_lflag = 0;
	t.c_cc[VMIN] = (unsigned char)vmin;
	t.c_cc[VTIME] = (unsigned char)vtime;
	set2(fd, &t);
	if (hex[0])
		handheld_sends(hex);
	t0 = now_s();
	/*
	 * A read that VTIME ends gets 10 s, far above its 0.5 s: on a loaded
	 * host the guest kernel's jiffies fall behind (VTIME 5 once took over
	 * 4 s).  One that only a signal ends gets 1.5 s.
	 */
	arm(vtime && (vmin == 0 || hex[0]) ? 10000 : 1500);
	CALL("read", read(fd, buf, sizeof(buf)));
	disarm();
	out("after=%s", bucket(now_s() - t0));
	done(fd);
}

static void p_vmin0_vtime0_empty(void)
{
	vgrid(0, 0, "");
}
static void p_vmin0_vtime0_data(void)
{
	vgrid(0, 0, "616263");
}
static void p_vmin0_vtime5_empty(void)
{
	vgrid(0, 5, "");
}
static void p_vmin0_vtime5_data(void)
{
	vgrid(0, 5, "616263");
}
static void p_vmin1_vtime0_empty(void)
{
	vgrid(1, 0, "");
}
static void p_vmin1_vtime0_data(void)
{
	vgrid(1, 0, "616263");
}
static void p_vmin1_vtime5_empty(void)
{
	vgrid(1, 5, "");
}
static void p_vmin1_vtime5_data(void)
{
	vgrid(1, 5, "616263");
}
static void p_vmin5_vtime0_short(void)
{
	vgrid(5, 0, "616263");
}
static void p_vmin5_vtime0_enough(void)
{
	vgrid(5, 0, "61626364656667");
}
static void p_vmin5_vtime5_short(void)
{
	vgrid(5, 5, "616263");
}
static void p_vmin5_vtime5_empty(void)
{
	vgrid(5, 5, "");
}
static void p_vmin20_vtime0_big(void)
{
	vgrid(20, 0, "6162636465666768696a6b6c");
}

/* ---- readiness ---- */

static void readiness(int with_data, int how)
{
	int fd = dev();

	make_raw(fd, 0, 0, 0);
	if (with_data)
		handheld_sends("5a5a");
	if (how == 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI | POLLRDHUP };

		CALL("poll", poll(&p, 1, 0));
		out("revents=%x", p.revents);
	} else if (how == 1) {
		fd_set r, w, x;
		struct timeval tv = { 0 };

		FD_ZERO(&r);
		FD_ZERO(&w);
		FD_ZERO(&x);
		FD_SET(fd, &r);
		FD_SET(fd, &w);
		FD_SET(fd, &x);
		CALL("select", select(fd + 1, &r, &w, &x, &tv));
		out("r=%d w=%d x=%d", FD_ISSET(fd, &r), FD_ISSET(fd, &w), FD_ISSET(fd, &x));
	} else {
		int ep = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLET }, got = { 0 };

		CALL("ctl", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
		CALL("wait", epoll_wait(ep, &got, 1, 0));
		out("events=%x", got.events);
		CALL("wait_again", epoll_wait(ep, &got, 1, 0));
		close(ep);
	}
	done(fd);
}

static void p_poll_idle(void)
{
	readiness(0, 0);
}
static void p_poll_data(void)
{
	readiness(1, 0);
}
static void p_select_idle(void)
{
	readiness(0, 1);
}
static void p_select_data(void)
{
	readiness(1, 1);
}
static void p_epoll_idle(void)
{
	readiness(0, 2);
}
static void p_epoll_data(void)
{
	readiness(1, 2);
}

static void p_poll_wakes(void)
{
	int fd = dev();
	struct pollfd p = { .fd = fd, .events = POLLIN };
	pid_t pid;

	make_raw(fd, 0, 0, 0);
	palm("reset-stats");
	pid = fork();
	if (pid == 0) {
		usleep(300000);
		palm("send 77");
		_exit(0);
	}
	CALL("poll", poll(&p, 1, 3000));
	out("revents=%x", p.revents);
	waitpid(pid, NULL, 0);
	done(fd);
}

/* A raw device in an epoll set of its own, edge-triggered for events. */
static int et_open(uint32_t events, int *ep)
{
	int fd = dev();
	struct epoll_event ev = { .events = events | EPOLLET };

	make_raw(fd, 0, 0, 0);
	*ep = epoll_create1(EPOLL_CLOEXEC);
	CALL("ctl", epoll_ctl(*ep, EPOLL_CTL_ADD, fd, &ev));
	return fd;
}

/* One epoll_wait() for up to ms, and the events it reported. */
static void et_wait(int ep, const char *name, int ms)
{
	struct epoll_event got = { 0 };

	CALL(name, epoll_wait(ep, &got, 1, ms));
	out("events=%x", got.events);
}

/*
 * n_tty wakes its readers at every arrival of input, POLLIN set before or
 * not: an epoll ET waiter that read only a part is told of new bytes.
 */
static void p_epoll_et_more(void)
{
	int ep, fd;
	char c;

	fd = et_open(EPOLLIN, &ep);
	handheld_sends("6162");
	et_wait(ep, "wait", 1000);
	CALL("read", read(fd, &c, 1));
	et_wait(ep, "wait_idle", 0);
	handheld_sends("63");
	et_wait(ep, "wait_more", 1000);
	close(ep);
	done(fd);
}

/*
 * tcsetattr() wakes every poller of an n_tty (n_tty_set_termios()), the
 * settings changed or not: an epoll ET waiter is told its events again.
 */
static void p_epoll_et_tcsetattr(void)
{
	int ep, fd = et_open(EPOLLIN | EPOLLOUT, &ep);
	struct termios t;

	et_wait(ep, "wait", 1000);
	et_wait(ep, "wait_idle", 0);
	CALL("get", tcgetattr(fd, &t));
	CALL("set", tcsetattr(fd, TCSANOW, &t));
	et_wait(ep, "wait_set", 200);
	close(ep);
	done(fd);
}

/*
 * usb-serial wakes the writers at each completed transfer (tty_wakeup()),
 * POLLOUT set before or not: an epoll ET waiter is told of room again.
 */
static void p_epoll_et_written(void)
{
	int ep, fd = et_open(EPOLLOUT, &ep);

	palm("reset-stats");
	et_wait(ep, "wait", 1000);
	CALL("write", write(fd, "abc", 3));
	et_wait(ep, "wait_written", 1000);
	close(ep);
	done(fd);
}

/* ---- the data path ---- */

/* raw input, the given output flags; the handheld echoes what it gets */
static void output_path(unsigned int oflag, const char *text)
{
	int fd = dev();

	make_raw(fd, 0, oflag, 0);
	palm_mode("echo");
	palm("reset-stats");
	CALL("write", write(fd, text, strlen(text)));
	collect_echo(fd, "back");
	palm_mode("sink");
	done(fd);
}

static void p_out_raw(void)
{
	output_path(0, "a\nb\rc\t\x13\x11\x7f\x03");
}
static void p_out_onlcr(void)
{
	output_path(OPOST | ONLCR, "a\nb\n");
}
static void p_out_ocrnl(void)
{
	output_path(OPOST | OCRNL, "a\rb\r");
}
static void p_out_onocr(void)
{
	output_path(OPOST | ONOCR | ONLCR, "\rab\r\n");
}
static void p_out_olcuc(void)
{
	output_path(OPOST | OLCUC, "aBc");
}
static void p_out_opost_off(void)
{
	output_path(ONLCR, "a\nb\n");
}
static void p_out_tab3(void)
{
	output_path(OPOST | TAB3, "a\tb");
}
static void p_out_initial(void)
{
	/* the fresh settings but no echo: does "echo hi > tty" send hi\r\n? */
	output_path(initial.c_oflag, "hi\n");
}

/* the handheld sends hex; the tty has these input and local flags */
static void input_path(unsigned int iflag, unsigned int lflag, const char *hex)
{
	int fd = dev();

	make_raw(fd, iflag, OPOST | ONLCR, lflag);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	handheld_sends(hex);
	collect(fd, "read");
	out_handheld_got();
	done(fd);
}

static void p_in_raw(void)
{
	input_path(0, 0, "610d620a637f");
}
static void p_in_canon_line(void)
{
	input_path(0, ICANON, "61620a63640a");
}
static void p_in_canon_partial(void)
{
	input_path(0, ICANON, "616263");
}
static void p_in_canon_erase(void)
{
	input_path(0, ICANON, "6162637f0a");
}
static void p_in_canon_kill(void)
{
	input_path(0, ICANON, "6162631564650a");
}
static void p_in_canon_werase(void)
{
	input_path(0, ICANON | IEXTEN, "61622063641770710a");
}
static void p_in_canon_eof(void)
{
	input_path(0, ICANON, "6162040463");
}
static void p_in_canon_lnext(void)
{
	input_path(0, ICANON | IEXTEN, "61167f0a");
}
static void p_in_icrnl(void)
{
	input_path(ICRNL, ICANON, "61620d");
}
static void p_in_inlcr(void)
{
	input_path(INLCR, 0, "610a62");
}
static void p_in_igncr(void)
{
	input_path(IGNCR, 0, "610d620a");
}
static void p_in_istrip(void)
{
	input_path(ISTRIP, 0, "c1e2ff");
}
static void p_in_iuclc(void)
{
	input_path(IUCLC, 0, "4142");
}
static void p_in_echo(void)
{
	input_path(ICRNL, ICANON | ECHO, "68690d");
}
static void p_in_echo_raw(void)
{
	input_path(0, ECHO, "6869");
}
static void p_in_echoctl(void)
{
	input_path(0, ICANON | ECHO | ECHOCTL, "01610a");
}
static void p_in_echoe(void)
{
	input_path(0, ICANON | ECHO | ECHOE, "61627f0a");
}
static void p_in_echonl(void)
{
	input_path(0, ICANON | ECHONL, "61620a");
}
static void p_in_isig(void)
{
	input_path(0, ISIG, "61036263");
}
static void p_in_initial(void)
{
	/* the fresh settings: does "cat tty" see lines, and what is echoed? */
	input_path(initial.c_iflag, initial.c_lflag, "68690d6a0d");
}

/* IXON: XOFF from the handheld stops our output, XON restarts it */
static void p_in_ixon(void)
{
	int fd = dev(), n = -1;

	make_raw(fd, IXON, 0, 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	handheld_sends("13");
	palm("reset-stats");
	CALL("write", write(fd, "held", 4));
	usleep(300000);
	out("handheld_had=%" PRIu64, palm_stat("out_bytes"));
	ioctl(fd, FIONREAD, &n);
	out("fionread=%d", n);
	handheld_sends("11");
	usleep(300000);
	out("handheld_had=%" PRIu64, palm_stat("out_bytes"));
	ioctl(fd, FIONREAD, &n);
	out("fionread=%d", n);
	done(fd);
}

/* IXOFF: tcflow(TCIOFF) and TCION send STOP and START */
static void p_in_ixoff(void)
{
	int fd = dev();

	make_raw(fd, IXOFF, 0, 0);
	palm("reset-stats");
	CALL("tcioff", tcflow(fd, TCIOFF));
	CALL("tcion", tcflow(fd, TCION));
	out_handheld_got();
	done(fd);
}

static void p_roundtrip_raw(void)
{
	int fd = dev();
	uint8_t all[256];

	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t)i;
	make_raw(fd, 0, 0, 0);
	palm_mode("echo");
	CALL("write", write(fd, all, sizeof(all)));
	collect_echo(fd, "back");
	palm_mode("sink");
	done(fd);
}

/* ---- close, departure, return ---- */

static void p_close_pending(void)
{
	int fd = dev();
	static char buf[3000];
	double t0;

	memset(buf, 'c', sizeof(buf));
	make_raw(fd, 0, 0, 0);
	palm("reset-stats");
	CALL("write", write(fd, buf, sizeof(buf)));
	t0 = now_s();
	CALL("close", close(fd));
	out("close_took=%s", bucket(now_s() - t0));
	usleep(500000);
	out("handheld_had=%" PRIu64, palm_stat("out_bytes"));
}

/* closing_wait in centiseconds, set without a word in the result */
static void set_closing_wait(int fd, unsigned int cs)
{
	struct serial_struct ss;

	memset(&ss, 0, sizeof(ss));
	ioctl(fd, TIOCGSERIAL, &ss);
	ss.closing_wait = (unsigned short)cs;
	ioctl(fd, TIOCSSERIAL, &ss);
}

static void *close_body(void *arg)
{
	close(*(int *)arg);
	return NULL;
}

/*
 * An O_NONBLOCK open while the last close's output drains (a closing wait
 * of 1 s, the handheld taking nothing more): tty_open() waits for the
 * closer's tty_lock whatever the flags.  pyserial and pilot-link open
 * with O_NONBLOCK and retry nothing (issue 26 row 11).
 */
static void p_open_nonblock_closing(void)
{
	static char buf[65536];
	int fd = dev(), fd2;
	struct pollfd p = { .events = POLLOUT };
	pthread_t t;
	double t0;

	make_raw(fd, 0, 0, 0);
	set_closing_wait(fd, 100);
	palm_mode("echo"); /* it takes 1 MiB nobody reads, then no more */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	memset(buf, 'n', sizeof(buf));
	p.fd = fd;
	t0 = now_s();
	while (now_s() - t0 < 60) {
		if (write(fd, buf, sizeof(buf)) < 0 && errno == EAGAIN && poll(&p, 1, 1000) == 0)
			break; /* full, and the handheld takes nothing */
	}
	pthread_create(&t, NULL, close_body, &fd);
	usleep(200000);
	t0 = now_s();
	fd2 = dev_open(O_RDWR | O_NONBLOCK);
	ret("open", fd2 < 0 ? -1 : 0, errno);
	out("took=%s", bucket(now_s() - t0));
	pthread_join(t, NULL);
	if (fd2 >= 0) {
		set_closing_wait(fd2, 3000);
		close(fd2);
	}
	/* sink first: what the handheld takes from now on is not echoed back
	 * for the next probe's reader, then its queued echo goes */
	palm_mode("sink");
	palm("reset-stats");
}

static int gone_fd = -1;
static pthread_t miwait_thread;
static long miwait_result;
static int miwait_errno;
static volatile int miwait_done;

static void *miwait_body(void *arg)
{
	(void)arg;
	errno = 0;
	miwait_result = ioctl(gone_fd, TIOCMIWAIT, TIOCM_CD | TIOCM_DSR | TIOCM_CTS);
	miwait_errno = errno;
	miwait_done = 1;
	return NULL;
}

static void p_depart(void)
{
	int n = -1;

	gone_fd = dev();
	make_raw(gone_fd, 0, 0, 0);
	handheld_sends("6465706172746564");
	ioctl(gone_fd, FIONREAD, &n);
	out("fionread_before=%d", n);
	pthread_create(&miwait_thread, NULL, miwait_body, NULL);
	usleep(200000);
	palm("unplug");
	sleep(1);
	out("unplugged");
}

static void p_gone_miwait(void)
{
	for (int i = 0; i < 30 && !miwait_done; i++)
		usleep(100000);
	if (!miwait_done) {
		out("still-waiting");
		pthread_kill(miwait_thread, SIGALRM);
		for (int i = 0; i < 30 && !miwait_done; i++)
			usleep(100000);
	}
	ret("tiocmiwait", miwait_done ? miwait_result : -1, miwait_done ? miwait_errno : EBUSY);
	pthread_join(miwait_thread, NULL);
}

static void p_gone_poll(void)
{
	struct pollfd p = { .fd = gone_fd, .events = POLLIN | POLLOUT | POLLRDHUP };

	CALL("poll", poll(&p, 1, 0));
	out("revents=%x", p.revents);
}

static void p_gone_read(void)
{
	collect(gone_fd, "read");
}

static void p_gone_read_again(void)
{
	char buf[8];

	arm(1000);
	CALL("read", read(gone_fd, buf, sizeof(buf)));
	disarm();
}

static void p_gone_write(void)
{
	CALL("write", write(gone_fd, "x", 1));
}

static void p_gone_ioctls(void)
{
	struct k_termios t;
	int v = 0;

	CALL("tcgets", ioctl(gone_fd, TCGETS, &t));
	CALL("tcsets", ioctl(gone_fd, TCSETS, &t));
	CALL("fionread", ioctl(gone_fd, FIONREAD, &v));
	CALL("tiocoutq", ioctl(gone_fd, TIOCOUTQ, &v));
	CALL("tiocmget", ioctl(gone_fd, TIOCMGET, &v));
	CALL("tcflush", ioctl(gone_fd, TCFLSH, TCIOFLUSH));
	CALL("tcdrain", tcdrain(gone_fd));
	CALL("tiocgserial", ioctl(gone_fd, TIOCGSERIAL, &(struct serial_struct){ 0 }));
	CALL("tiocgwinsz", ioctl(gone_fd, TIOCGWINSZ, &(struct winsize){ 0 }));
}

static void p_gone_open(void)
{
	int fd = dev_open(O_RDWR | O_NONBLOCK);

	ret("open", fd < 0 ? -1 : 0, errno);
	if (fd >= 0)
		close(fd);
}

static void p_gone_close(void)
{
	CALL("close", close(gone_fd));
	gone_fd = -1;
}

/* the handheld comes back: wait until the path opens with a carrier or termios */
static void p_return(void)
{
	int fd = -1;

	palm("plug");
	for (int i = 0; i < 150 && fd < 0; i++) {
		int lines = 0;

		fd = dev_open(O_RDWR | O_NONBLOCK);
		if (fd >= 0 && ioctl(fd, TIOCMGET, &lines) == 0 && !(lines & TIOCM_CD)) {
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			usleep(100000);
	}
	ret("reopen", fd < 0 ? -1 : 0, fd < 0 ? errno : 0);
	if (fd >= 0)
		close(fd);
	usleep(500000);
}

static void p_return_termios(void)
{
	int fd = dev();
	struct k_termios2 t;

	get2(fd, &t);
	out_termios(&t);
	/* the next run (the 32-bit probes) starts from the first run's settings */
	set2(fd, &initial);
	close(fd);
}

/* ---- the list ---- */

#define COMPAT 1u /* the ioctls have a compat form: run in the 32-bit build too */

struct probe {
	const char *name;
	void (*run)(void);
	unsigned int flags;
};

#define P(n, f)                                                                                    \
	{                                                                                          \
#n, p_##n, f                                                                       \
	}

static const struct probe probes[] = {
	P(termios_initial, COMPAT),
	P(open_rdwr, 0),
	P(open_rdonly, 0),
	P(open_wronly, 0),
	P(open_nonblock, 0),
	P(open_append, 0),
	P(open_trunc, 0),
	P(open_second, 0),
	P(isatty, COMPAT),
	P(ttyname, 0),
	P(fstat, 0),
	P(ctty, 0),
	P(tiocsctty, 0),
	P(tiocgsid, COMPAT),
	P(tcgets, COMPAT),
	P(iflag_all, COMPAT),
	P(iflag_none, 0),
	P(oflag_all, COMPAT),
	P(oflag_none, 0),
	P(lflag_all, COMPAT),
	P(lflag_none, 0),
	P(cflag_cs5, COMPAT),
	P(cflag_cs6, 0),
	P(cflag_cs7, 0),
	P(cflag_cstopb, 0),
	P(cflag_parenb, 0),
	P(cflag_parodd, 0),
	P(cflag_cmspar, 0),
	P(cflag_crtscts, 0),
	P(cflag_hupcl_off, 0),
	P(cflag_clocal_off, 0),
	P(cflag_cread_off, 0),
	P(cflag_b115200, COMPAT),
	P(cflag_b0, 0),
	P(cflag_b50, 0),
	P(cflag_cibaud, 0),
	P(cc_all, COMPAT),
	P(c_line, 0),
	P(speed_115200, 0),
	P(speed_split, 0),
	P(termios2_bother, COMPAT),
	P(termios2_bother_in, 0),
	P(termio_get, COMPAT),
	P(termio_tcseta, COMPAT),
	P(termio_tcsetaw, 0),
	P(termio_tcsetaf, 0),
	P(tcsetsw, 0),
	P(tcsetsf, 0),
	P(tcsets_efault, COMPAT),
	P(tcdrain_idle, 0),
	P(tcdrain_data, 0),
	P(tcflush_in, 0),
	P(tcflush_out, 0),
	P(tcflush_both, 0),
	P(tcflush_bad, 0),
	P(tcflow_ooff, 0),
	P(tcflow_ioff, 0),
	P(tcflow_ion, 0),
	P(tcflow_bad, 0),
	P(tcsendbreak, COMPAT),
	P(tiocmget, COMPAT),
	P(tiocmbic_dtr, 0),
	P(tiocmbis_dtr, 0),
	P(tiocmset_none, 0),
	P(tiocmset_all, 0),
	P(tiocmiwait_cd, COMPAT),
	P(tiocmiwait_rng, 0),
	P(tiocmiwait_zero, 0),
	P(tiocgicount, COMPAT),
	P(tiocgserial, COMPAT),
	P(tiocsserial_same, COMPAT),
	P(tiocsserial_closing_wait, COMPAT),
	P(tiocsserial_closing_none, 0),
	P(tiocsserial_close_delay, 0),
	P(tiocsserial_low_latency, 0),
	P(tiocsserial_user, 0),
	P(tiocsserial_user_same, 0),
	P(fionread_empty, COMPAT),
	P(fionread_data, COMPAT),
	P(fionread_canon, 0),
	P(tiocexcl, COMPAT),
	P(winsize, COMPAT),
	P(tiocsti_root, COMPAT),
	P(tiocsti_user, 0),
	P(softcar, COMPAT),
	P(lcktrmios, COMPAT),
	P(lcktrmios_user, 0),
	P(lcktrmios_close, COMPAT),
	P(tiocgdev, 0),
	P(ldisc, COMPAT),
	P(unknown_ioctls, COMPAT),
	P(fionbio, COMPAT),
	P(fioasync, COMPAT),
	P(fioclex, 0),
	P(lseek, 0),
	P(pread, 0),
	P(pwrite, 0),
	P(rw_zero, 0),
	P(read_nonblock_empty, 0),
	P(read_efault, 0),
	P(vmin0_vtime0_empty, 0),
	P(vmin0_vtime0_data, 0),
	P(vmin0_vtime5_empty, 0),
	P(vmin0_vtime5_data, 0),
	P(vmin1_vtime0_empty, 0),
	P(vmin1_vtime0_data, 0),
	P(vmin1_vtime5_empty, 0),
	P(vmin1_vtime5_data, 0),
	P(vmin5_vtime0_short, 0),
	P(vmin5_vtime0_enough, 0),
	P(vmin5_vtime5_short, 0),
	P(vmin5_vtime5_empty, 0),
	P(vmin20_vtime0_big, 0),
	P(poll_idle, 0),
	P(poll_data, 0),
	P(select_idle, 0),
	P(select_data, 0),
	P(epoll_idle, 0),
	P(epoll_data, 0),
	P(poll_wakes, 0),
	P(epoll_et_more, 0),
	P(epoll_et_tcsetattr, 0),
	P(epoll_et_written, 0),
	P(out_raw, 0),
	P(out_onlcr, 0),
	P(out_ocrnl, 0),
	P(out_onocr, 0),
	P(out_olcuc, 0),
	P(out_opost_off, 0),
	P(out_tab3, 0),
	P(out_initial, 0),
	P(in_raw, 0),
	P(in_canon_line, 0),
	P(in_canon_partial, 0),
	P(in_canon_erase, 0),
	P(in_canon_kill, 0),
	P(in_canon_werase, 0),
	P(in_canon_eof, 0),
	P(in_canon_lnext, 0),
	P(in_icrnl, 0),
	P(in_inlcr, 0),
	P(in_igncr, 0),
	P(in_istrip, 0),
	P(in_iuclc, 0),
	P(in_echo, 0),
	P(in_echo_raw, 0),
	P(in_echoctl, 0),
	P(in_echoe, 0),
	P(in_echonl, 0),
	P(in_isig, 0),
	P(in_initial, 0),
	P(in_ixon, 0),
	P(in_ixoff, 0),
	P(roundtrip_raw, 0),
	P(close_pending, 0),
	P(open_nonblock_closing, 0),
	/* from here on in this order: the handheld leaves and comes back */
	P(depart, 0),
	P(gone_miwait, 0),
	P(gone_poll, 0),
	P(gone_read, 0),
	P(gone_read_again, 0),
	P(gone_write, 0),
	P(gone_ioctls, 0),
	P(gone_open, 0),
	P(gone_close, 0),
	P(return, 0),
	P(open_flush_in, 0),
	P(return_termios, 0),
};

int main(int argc, char **argv)
{
	bool compat_only = false, list = false;
	struct sigaction sa = { .sa_handler = on_alarm };
	int fd, argi = 1;

	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (strcmp(argv[argi], "--compat-only") == 0) {
			compat_only = true;
		} else if (strcmp(argv[argi], "--list") == 0) {
			list = true;
		} else {
			printf("usage: ttyprobe [--compat-only] [--list] PATH\n"
			       "Run the fixed list of tty probes against PATH, one line each.\n");
			return strcmp(argv[argi], "--help") == 0 ? 0 : 2;
		}
	}
	if (list) {
		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			printf("%s\n", probes[i].name);
		return 0;
	}
	if (argi != argc - 1) {
		fprintf(stderr, "usage: ttyprobe [--compat-only] [--list] PATH\n");
		return 2;
	}
	path = argv[argi];
	guest_test_name("ttyprobe");
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGIO, SIG_IGN);
	palm_mode("sink");
	palm("reset-stats");
	fd = dev();
	get2(fd, &initial);
	close(fd);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (compat_only && !(probes[i].flags & COMPAT))
			continue;
		result[0] = '\0';
		probes[i].run();
		printf("%s: %s\n", probes[i].name, result);
		fflush(stdout);
	}
	palm_mode("echo");
	return 0;
}
