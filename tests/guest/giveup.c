// SPDX-License-Identifier: MIT
/*
 * pilotd gives up on a handheld whose endpoints halt too often, and gives
 * it to nobody: not back to the kernel's visor driver, whose probe would
 * run inside pilotd's loop (a synchronous re-attach) and ask the handheld
 * for its connection information again.  The simulated Palm stalls its
 * OUT endpoint on one write after another until pilotd hangs the session
 * up; then the handheld has seen no new connection-information request,
 * no ttyUSB port is back, and pilotd still answers at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"

#define HALTS_MAX 10 /* core/pump.h PUMP_HALTS_MAX */

/* A write and its drain, each halted once; false once the session is gone. */
static bool halted_write(int fd, int i)
{
	char buf[64];
	int lines = 0;

	memset(buf, 'a' + i % 26, sizeof(buf));
	palm("fault stall-out");
	alarm(30); /* a halt must not hang the drain */
	if (write(fd, buf, sizeof(buf)) < 0 || tcdrain(fd) < 0) {
		alarm(0);
		return false;
	}
	alarm(0);
	return ioctl(fd, TIOCMGET, &lines) == 0 && (lines & TIOCM_CD);
}

int main(void)
{
	uint64_t conninfo;
	double t0;
	int fd, fd2, i;

	guest_test_name("giveup");
	palm("mode sink");
	fd = open_attached(O_RDWR | O_NOCTTY, 30);
	if (fd < 0)
		fail("open: %s", strerror(errno));
	set_raw(fd);
	conninfo = palm_stat("conninfo_requests");
	if (access("/dev/ttyUSB0", F_OK) == 0)
		fail("visor still holds the handheld pilotd took");
	for (i = 0; i < HALTS_MAX + 2 && halted_write(fd, i); i++)
		;
	if (i < HALTS_MAX - 1 || i == HALTS_MAX + 2)
		fail("pilotd gave up after %d halted writes, not %d", i + 1, HALTS_MAX);
	note("pilotd hung up the session at halted write %d (faults fired: %llu)", i + 1,
	     (unsigned long long)palm_stat("faults_fired"));
	/* a re-attached visor probes at once; give it ample time to show */
	sleep(3);
	if (palm_stat("conninfo_requests") != conninfo)
		fail("the handheld was asked for its connection information again (%llu, was "
		     "%llu): the kernel's driver took it back",
		     (unsigned long long)palm_stat("conninfo_requests"),
		     (unsigned long long)conninfo);
	if (access("/dev/ttyUSB0", F_OK) == 0)
		fail("/dev/ttyUSB0 is back: the kernel's driver took the handheld back");
	t0 = now_s();
	fd2 = open("/dev/pilot", O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd2 < 0)
		fail("pilotd does not open /dev/pilot after giving up: %s", strerror(errno));
	if (now_s() - t0 > 2.0)
		fail("an open took %.1f s after giving up", now_s() - t0);
	note("%llu connection-information requests before and after, no ttyUSB0, open in "
	     "%.3f s",
	     (unsigned long long)conninfo, now_s() - t0);
	close(fd2);
	close(fd);
	return 0;
}
