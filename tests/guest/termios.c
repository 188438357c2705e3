// SPDX-License-Identifier: MIT
/*
 * /dev/pilot answers terminal requests as a tty does.  The same sequence
 * of termios calls runs on a pty (the reference) and on /dev/pilot, and
 * every return value, errno and the termios2 read back must match, except
 * what usb-serial keeps for visor and a pty stores: the speeds and the
 * hardware bits of c_cflag (tty_termios_copy_hw), which must not change.
 * Then what only a serial port has: modem lines, queue counts, drain and
 * flush against the simulated Palm, exclusive opens, bad pointers, stty.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"

/* the kernel's struct termios2; glibc's <termios.h> has none */
struct k_termios2 {
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[19];
	unsigned int c_ispeed, c_ospeed;
};
#define K_TCGETS2 _IOR('T', 0x2A, struct k_termios2)
#define K_TCSETS2 _IOW('T', 0x2B, struct k_termios2)
#define K_BOTHER  0010000
#define K_CBAUD	  0010017
#define K_SOFT	  (HUPCL | CREAD | CLOCAL) /* the c_cflag bits usb-serial stores */

#define MAX_STEPS 16

struct step_result {
	const char *what;
	int rc, err;
	struct k_termios2 t;
};

static void snapshot(int fd, struct step_result *s, const char *what, int rc)
{
	s->what = what;
	s->rc = rc;
	s->err = rc < 0 ? errno : 0;
	memset(&s->t, 0, sizeof(s->t));
	if (ioctl(fd, K_TCGETS2, &s->t) < 0)
		fail("%s: TCGETS2: %s", what, strerror(errno));
}

/* The reference sequence; returns the number of steps. */
static int run_steps(int fd, struct step_result *out)
{
	struct termios t;
	struct k_termios2 t2;
	struct winsize ws = { .ws_row = 24, .ws_col = 80 }, ws2 = { 0 };
	int n = 0;

	memset(&t, 0, sizeof(t));
	t.c_iflag = IGNPAR;
	t.c_cflag = CS8 | CREAD | CLOCAL | HUPCL;
	t.c_cc[VMIN] = 1;
	cfsetspeed(&t, B9600);
	snapshot(fd, &out[n++], "tcsetattr TCSANOW 9600 8N1", tcsetattr(fd, TCSANOW, &t));
	cfsetspeed(&t, B57600);
	snapshot(fd, &out[n++], "tcsetattr TCSADRAIN 57600", tcsetattr(fd, TCSADRAIN, &t));
	t.c_cc[VMIN] = 5;
	t.c_cc[VTIME] = 3;
	snapshot(fd, &out[n++], "tcsetattr TCSAFLUSH VMIN 5 VTIME 3", tcsetattr(fd, TCSAFLUSH, &t));
	cfsetispeed(&t, B19200);
	snapshot(fd, &out[n++], "split input speed 19200", tcsetattr(fd, TCSANOW, &t));
	ioctl(fd, K_TCGETS2, &t2);
	t2.c_cflag = (t2.c_cflag & ~(unsigned int)(K_CBAUD | (K_CBAUD << 16))) | K_BOTHER;
	t2.c_ospeed = 12345;
	snapshot(fd, &out[n++], "TCSETS2 BOTHER 12345", ioctl(fd, K_TCSETS2, &t2));
	snapshot(fd, &out[n++], "tcflush TCIOFLUSH", tcflush(fd, TCIOFLUSH));
	snapshot(fd, &out[n++], "tcflush bad queue", tcflush(fd, 7));
	snapshot(fd, &out[n++], "tcdrain", tcdrain(fd));
	snapshot(fd, &out[n++], "tcflow TCOON", tcflow(fd, TCOON));
	snapshot(fd, &out[n++], "TIOCSWINSZ", ioctl(fd, TIOCSWINSZ, &ws));
	snapshot(fd, &out[n++], "TIOCGWINSZ", ioctl(fd, TIOCGWINSZ, &ws2));
	if (ws2.ws_row != 24 || ws2.ws_col != 80)
		fail("TIOCGWINSZ returned %ux%u after 24x80 was set", ws2.ws_row, ws2.ws_col);
	snapshot(fd, &out[n++], "an unknown ioctl", ioctl(fd, _IOR('X', 0x77, int), &n));
	snapshot(fd, &out[n++], "TCGETS to a bad pointer", ioctl(fd, TCGETS, (void *)16));
	return n;
}

static void compare_with_pty(int pilot)
{
	struct step_result ref[MAX_STEPS], got[MAX_STEPS];
	int ptm = posix_openpt(O_RDWR | O_NOCTTY), pts, n, m;

	if (ptm < 0 || grantpt(ptm) < 0 || unlockpt(ptm) < 0)
		fail("cannot make a pty: %s", strerror(errno));
	pts = open(ptsname(ptm), O_RDWR | O_NOCTTY);
	if (pts < 0)
		fail("open %s: %s", ptsname(ptm), strerror(errno));
	struct k_termios2 hw;

	if (ioctl(pilot, K_TCGETS2, &hw) < 0)
		fail("TCGETS2: %s", strerror(errno));
	n = run_steps(pts, ref);
	m = run_steps(pilot, got);
	for (int i = 0; i < n && i < m; i++) {
		if (got[i].rc != ref[i].rc || got[i].err != ref[i].err)
			fail("%s: /dev/pilot returned %d (%s), the pty %d (%s)", ref[i].what,
			     got[i].rc, strerror(got[i].err), ref[i].rc, strerror(ref[i].err));
		if ((got[i].t.c_cflag & ~K_SOFT) != (hw.c_cflag & ~K_SOFT) ||
		    got[i].t.c_ospeed != hw.c_ospeed || got[i].t.c_ispeed != hw.c_ispeed)
			fail("%s: /dev/pilot changed its hardware bits: cflag 0%o ospeed %u, "
			     "was 0%o %u",
			     ref[i].what, got[i].t.c_cflag, got[i].t.c_ospeed, hw.c_cflag,
			     hw.c_ospeed);
		/* the rest as the pty has it */
		got[i].t.c_cflag = (got[i].t.c_cflag & K_SOFT) | (ref[i].t.c_cflag & ~K_SOFT);
		got[i].t.c_ospeed = ref[i].t.c_ospeed;
		got[i].t.c_ispeed = ref[i].t.c_ispeed;
		if (memcmp(&got[i].t, &ref[i].t, sizeof(got[i].t)) != 0)
			fail("%s: /dev/pilot reads back cflag 0%o ospeed %u ispeed %u, the pty "
			     "cflag 0%o ospeed %u ispeed %u",
			     ref[i].what, got[i].t.c_cflag, got[i].t.c_ospeed, got[i].t.c_ispeed,
			     ref[i].t.c_cflag, ref[i].t.c_ospeed, ref[i].t.c_ispeed);
	}
	note("%d termios steps: /dev/pilot answered as a pty, keeping its speed as ttyUSB", n);
	close(pts);
	close(ptm);
}

static void defaults(int pilot)
{
	struct termios t;

	if (!isatty(pilot))
		fail("isatty(/dev/pilot) is false");
	if (tcgetattr(pilot, &t) < 0)
		fail("tcgetattr: %s", strerror(errno));
	if ((t.c_cflag & CSIZE) != CS8 || !(t.c_cflag & CREAD) || cfgetospeed(&t) != B9600 ||
	    !(t.c_lflag & ICANON) || t.c_cc[VMIN] != 1)
		fail("a fresh /dev/pilot is not 9600 8N1 cooked like a fresh ttyUSB");
	/* usb-serial keeps 8N1 for visor, and tcsetattr() still succeeds */
	t.c_cflag = (t.c_cflag & ~(tcflag_t)CSIZE) | CS7 | PARENB | PARODD;
	if (tcsetattr(pilot, TCSANOW, &t) < 0)
		fail("tcsetattr 7O1: %s", strerror(errno));
	if (tcgetattr(pilot, &t) < 0 || (t.c_cflag & (CSIZE | PARENB)) != CS8)
		fail("7O1 changed the character size or parity; ttyUSB keeps 8N1");
	note("isatty, ttyUSB defaults, 7O1 asked for and 8N1 kept");
}

static void queues_and_lines(int pilot)
{
	uint8_t buf[4096] = { 0 };
	int lines = 0, n = -1;
	struct pollfd p = { .fd = pilot, .events = POLLIN };
	uint64_t out0;

	if (ioctl(pilot, TIOCMGET, &lines) < 0 ||
	    (lines & (TIOCM_CD | TIOCM_DSR | TIOCM_CTS)) != (TIOCM_CD | TIOCM_DSR | TIOCM_CTS))
		fail("TIOCMGET 0x%x: CD, DSR and CTS should be on with a handheld attached", lines);
	lines = TIOCM_DTR;
	ioctl(pilot, TIOCMBIC, &lines);
	ioctl(pilot, TIOCMGET, &lines);
	if (lines & TIOCM_DTR)
		fail("DTR still set after TIOCMBIC");

	palm("mode hold");
	palm("reset-stats");
	palm("send-pattern 9 10");
	palm("release");
	if (poll(&p, 1, 10000) != 1)
		fail("no data 10 s after the Palm sent");
	palm_wait_stat("in_bytes", 10, 10);
	usleep(100000);
	if (ioctl(pilot, FIONREAD, &n) < 0 || n != 10)
		fail("FIONREAD says %d, the Palm sent 10", n);
	tcflush(pilot, TCIFLUSH);
	ioctl(pilot, FIONREAD, &n);
	if (n != 0)
		fail("FIONREAD says %d after tcflush(TCIFLUSH)", n);

	out0 = palm_stat("out_bytes");
	write_full(pilot, buf, sizeof(buf));
	if (tcdrain(pilot) < 0)
		fail("tcdrain: %s", strerror(errno));
	if (palm_stat("out_bytes") != out0 + sizeof(buf))
		fail("tcdrain returned before the Palm had all bytes");
	ioctl(pilot, TIOCOUTQ, &n);
	if (n != 0)
		fail("TIOCOUTQ says %d after tcdrain", n);
	note("modem lines, FIONREAD, TIOCOUTQ, tcflush and tcdrain against the Palm");
}

/* TIOCEXCL: a second open fails with EBUSY for anyone but root. */
static int open_as_user(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (setgid(20) < 0 || setuid(1000) < 0)
			_exit(100);
		int fd = open(PILOT_DEV, O_RDWR | O_NONBLOCK);

		_exit(fd >= 0 ? 0 : errno);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void exclusive(int pilot)
{
	int r;

	if ((r = open_as_user()) != 0)
		fail("a dialout user cannot open /dev/pilot (%d)", r);
	ioctl(pilot, TIOCEXCL);
	if ((r = open_as_user()) != EBUSY)
		fail("after TIOCEXCL a second open gave %d, expected EBUSY", r);
	ioctl(pilot, TIOCNXCL);
	if ((r = open_as_user()) != 0)
		fail("after TIOCNXCL the open failed (%d)", r);
	note("TIOCEXCL makes a second open fail with EBUSY, TIOCNXCL undoes it");
}

static void stty(void)
{
	char line[512] = "";
	FILE *f;

	if (system("stty -F /dev/pilot raw -echo") != 0)
		fail("stty -F /dev/pilot raw -echo failed");
	/* the speed stays, as on ttyUSB (and stty may say so: not checked) */
	if (system("stty -F /dev/pilot 19200 2>/dev/null") < 0)
		fail("cannot run stty: %s", strerror(errno));
	f = popen("stty -F /dev/pilot", "r");
	if (!f || !fgets(line, sizeof(line), f))
		fail("stty -F /dev/pilot printed nothing");
	pclose(f);
	if (!strstr(line, "speed 9600"))
		fail("stty shows '%s' after asking for 19200; ttyUSB keeps 9600", line);
	note("stty: %s", strtok(line, "\n"));
}

int main(void)
{
	int pilot;

	guest_test_name("termios");
	pilot = open(PILOT_DEV, O_RDWR | O_NONBLOCK | O_NOCTTY);
	if (pilot < 0)
		fail("open: %s", strerror(errno));
	defaults(pilot);
	compare_with_pty(pilot);
	fcntl(pilot, F_SETFL, 0);
	queues_and_lines(pilot);
	exclusive(pilot);
	stty();
	close(pilot);
	return 0;
}
