// SPDX-License-Identifier: MIT
/*
 * departures [ROUNDS]: the handheld leaves at every kind of moment, and
 * pilotd stays up.  Each round plugs the simulated Palm in, waits a random
 * 0-300 ms (so the departure falls in enumeration, the connection-info
 * handshake, or a running stream), and in most rounds has a desktop open
 * /dev/pilot, write and read a little just before the unplug; in half
 * of them the handheld sends bytes of its own just before it leaves.  After all
 * rounds, a fresh session must still move bytes both ways.  (Issue 8: a
 * departure freed a libusb watch while its epoll batch was being handled.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestlib.h"

static void round_trip_check(void)
{
	uint8_t buf[64] = "still here";
	uint64_t out0;
	int fd;

	palm("plug");
	fd = open_attached(O_RDWR, 30);
	out0 = palm_stat("out_bytes");
	write_full(fd, buf, sizeof(buf));
	palm_wait_stat("out_bytes", out0 + sizeof(buf), 30);
	palm("send-pattern 5 64");
	palm("release");
	if (read_full(fd, buf, sizeof(buf)) != sizeof(buf))
		fail("the session after the departures read short");
	close(fd);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300, opened = 0;
	double t0 = now_s();
	uint8_t buf[256];

	guest_test_name("departures");
	srand(8);
	palm("mode echo");
	for (int i = 0; i < rounds; i++) {
		int fd = -1;

		palm("plug");
		usleep((useconds_t)(rand() % 300) * 1000);
		if (rand() % 4) {
			fd = open(PILOT_DEV, O_RDWR | O_NONBLOCK);
			if (fd < 0)
				fail("round %d: open: %s", i, strerror(errno));
			set_raw(fd); /* no echo back to the echoing Palm */
			memset(buf, i, sizeof(buf));
			/* the desktop just wrote: the departure meets queued bytes */
			if (write(fd, buf, 1 + (size_t)(rand() % (int)sizeof(buf))) < 0 &&
			    errno != EAGAIN && errno != EIO)
				fail("round %d: write: %s", i, strerror(errno));
			if (read(fd, buf, sizeof(buf)) < 0 && errno != EAGAIN && errno != EIO)
				fail("round %d: read: %s", i, strerror(errno));
			opened++;
		}
		/* the handheld's own last words cross its departure */
		if (rand() % 2)
			palm("send-pattern %d %d", i, 1 + rand() % 100);
		palm("unplug");
		if (fd >= 0 && rand() % 2)
			usleep((useconds_t)(rand() % 20) * 1000);
		if (fd >= 0)
			close(fd);
		if (system("pidof pilotd > /dev/null") != 0)
			fail("pilotd died in round %d", i);
	}
	round_trip_check();
	note("%d departures (%d with a desktop that had just written) in %.1f s; pilotd is up",
	     rounds, opened, now_s() - t0);
	note("passed");
	return 0;
}
