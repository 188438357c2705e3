// SPDX-License-Identifier: MIT
/*
 * No ioctl argument can hurt pilotd: thousands of tty and random ioctl
 * numbers with NULL, wild, tiny and large argument pointers.  None may
 * hang, and afterwards /dev/pilot still carries bytes both ways (pilotd's
 * own clean exit is checked by run-guest.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"
#include "testpattern.h"

#define ROUNDS	     3000
#define CALL_BOUND_S 5

static const unsigned long tty_cmds[] = {
	TCGETS,	    TCSETS,	 TCSETSW,      TCSETSF,	     TCGETA,	   TCSETA,
	TCSETAW,    TCSETAF,	 TCSBRK,       TCSBRKP,	     TIOCSBRK,	   TIOCCBRK,
	TCFLSH,	    TCXONC,	 TIOCEXCL,     TIOCNXCL,     FIONREAD,	   TIOCOUTQ,
	TIOCMGET,   TIOCMSET,	 TIOCMBIS,     TIOCMBIC,     TIOCGICOUNT,  TIOCGWINSZ,
	TIOCSWINSZ, TIOCGSERIAL, 0x802c542aUL, 0x402c542bUL, 0x80045440UL, /* TCGETS2 ... */
};

static void on_alarm(int sig)
{
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	static uint8_t big[4096];
	uint8_t small[4], out[16], in[16];
	struct testpattern tp;
	struct termios saved;
	unsigned int enotty = 0, efault = 0, ok = 0, other = 0;
	uint32_t x = 2026;
	int fd;

	guest_test_name("ioctl-storm");
	sigaction(SIGALRM, &sa, NULL);
	fd = open(PILOT_DEV, O_RDWR | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		fail("open: %s", strerror(errno));
	set_raw(fd); /* the echo check at the end moves bytes, not lines */
	if (tcgetattr(fd, &saved) < 0)
		fail("tcgetattr: %s", strerror(errno));
	for (int i = 0; i < ROUNDS; i++) {
		void *args[] = { NULL, small, big, (void *)16, (void *)-1L, (void *)(uintptr_t)x };
		unsigned long cmd;
		double t0;
		int r;

		x = x * 1103515245u + 12345u;
		cmd = x & 1 ? tty_cmds[(x >> 1) % (sizeof(tty_cmds) / sizeof(tty_cmds[0]))]
			    : (unsigned long)(x ^ (x << 7));
		if (cmd == TIOCMIWAIT) /* waits for the carrier by design */
			continue;
		t0 = now_s();
		alarm(CALL_BOUND_S);
		r = ioctl(fd, cmd, args[(x >> 9) % 6]);
		alarm(0);
		if (now_s() - t0 > CALL_BOUND_S - 0.5)
			fail("ioctl 0x%lx took %.1f s", cmd, now_s() - t0);
		if (r >= 0)
			ok++;
		else if (errno == ENOTTY)
			enotty++;
		else if (errno == EFAULT)
			efault++;
		else
			other++;
	}
	note("%d ioctls: %u ok, %u ENOTTY, %u EFAULT, %u other errors", ROUNDS, ok, enotty, efault,
	     other);

	/* undo whatever the storm set, then the stream must still work */
	ioctl(fd, TCXONC, TCOON);
	ioctl(fd, TIOCNXCL);
	if (tcsetattr(fd, TCSANOW, &saved) < 0 || fcntl(fd, F_SETFL, 0) < 0)
		fail("restoring settings: %s", strerror(errno));
	tcflush(fd, TCIOFLUSH);
	palm("mode echo");
	testpattern_init(&tp, 31);
	testpattern_fill(&tp, out, sizeof(out));
	write_full(fd, out, sizeof(out));
	alarm(10);
	if (read_full(fd, in, sizeof(in)) != sizeof(in) || memcmp(in, out, sizeof(in)) != 0)
		fail("after the storm, bytes do not come back through /dev/pilot");
	alarm(0);
	note("after the storm /dev/pilot still carries bytes both ways");
	close(fd);
	return 0;
}
