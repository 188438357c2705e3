// SPDX-License-Identifier: MIT
/*
 * A USB error in the middle of a transfer does not cost the session or a
 * byte: the simulated Palm stalls its OUT endpoint, then its IN endpoint,
 * then babbles, each while data is flowing; pilotd clears the halts and
 * everything arrives byte for byte on the same open file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"
#include "testpattern.h"

#define LEN (64 * 1024)

static void pattern(uint64_t seed, uint8_t *buf, size_t len)
{
	struct testpattern tp;

	testpattern_init(&tp, seed);
	testpattern_fill(&tp, buf, len);
}

static void out_survives_stall(int fd, uint8_t *buf)
{
	pattern(21, buf, LEN);
	palm("fault stall-out");
	write_full(fd, buf, LEN);
	alarm(30); /* tcdrain must not hang */
	if (tcdrain(fd) < 0)
		fail("tcdrain after an OUT stall: %s", strerror(errno));
	alarm(0);
	if (palm_stat("out_bytes") != LEN ||
	    palm_stat("out_fnv") != fnv1a64(FNV1A64_INIT, buf, LEN))
		fail("after an OUT stall the Palm did not get the %d bytes intact", LEN);
	note("OUT stall mid-write: all %d bytes reached the Palm", LEN);
}

static void in_survives(int fd, uint8_t *buf, uint8_t *expect, const char *fault, uint64_t seed)
{
	pattern(seed, expect, LEN);
	palm("fault %s", fault);
	palm("send-pattern %llu %d", (unsigned long long)seed, LEN);
	palm("release");
	alarm(30);
	if (read_full(fd, buf, LEN) != LEN)
		fail("read after %s came up short", fault);
	alarm(0);
	if (memcmp(buf, expect, LEN) != 0)
		fail("bytes read after %s are not what the Palm sent", fault);
	note("%s mid-read: all %d bytes read intact", fault, LEN);
}

int main(void)
{
	uint8_t *a = malloc(LEN), *b = malloc(LEN);
	int fd, lines = 0;

	guest_test_name("usb-errors");
	palm("mode hold");
	palm("reset-stats");
	fd = open_attached(O_RDWR | O_NOCTTY, 30);
	if (fd < 0 || !a || !b)
		fail("open: %s", strerror(errno));
	out_survives_stall(fd, a);
	in_survives(fd, a, b, "stall-in", 22);
	in_survives(fd, a, b, "babble-in", 23);
	if (palm_stat("faults_fired") != 3)
		fail("the Palm fired %llu faults, not 3: the test did not test",
		     (unsigned long long)palm_stat("faults_fired"));
	if (palm_stat("halts_cleared") != 2)
		fail("pilotd cleared %llu halts, expected 2",
		     (unsigned long long)palm_stat("halts_cleared"));
	if (ioctl(fd, TIOCMGET, &lines) < 0 || !(lines & TIOCM_CD))
		fail("the session was lost: TIOCMGET %s, lines 0x%x", strerror(errno), lines);
	note("3 faults, 2 halts cleared, session kept");
	close(fd);
	return 0;
}
