// SPDX-License-Identifier: MIT
/*
 * packets: messages that end on a packet boundary arrive at once.  A
 * full-speed handheld sends 64-byte packets and a bulk IN transfer ends on
 * a short packet or when full, so a handheld that sends 64*k bytes and then
 * waits for an answer strands them inside any larger transfer (palm-protocol.md
 * section 6).  The simulated Palm packetizes so (palm-sim, no --zlp); each
 * message below is followed by silence until the reader has it whole, read
 * with a large buffer as tty programs do.  Lengths 1..300, then 64*k for
 * k = 1..256 (up to 16 KiB).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestlib.h"
#include "testpattern.h"

/*
 * A message takes well under 10 ms on a quiet host, but a 15040-byte one
 * once took over 1 s in a clean clone's run with the host loaded 12 times
 * over.  Bytes stranded in a transfer never come (the Palm stays silent
 * until the reader has the whole message), so a long bound still finds
 * them; the slowest message is reported.
 */
#define BOUND_S 10.0

static uint8_t got[65536], want[16384];
static double slowest;

static void one_message(int fd, size_t len, uint64_t seed)
{
	struct testpattern tp;
	size_t have = 0;
	double t0;

	testpattern_init(&tp, seed);
	testpattern_fill(&tp, want, len);
	palm("send-pattern %llu %zu", (unsigned long long)seed, len);
	t0 = now_s();
	while (have < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left_ms = (int)((t0 + BOUND_S - now_s()) * 1000);
		ssize_t r;

		if (left_ms <= 0 || poll(&p, 1, left_ms) != 1)
			fail("a %zu-byte message: %zu bytes arrived within %.0f s, then nothing "
			     "(stranded in a transfer?)",
			     len, have, BOUND_S);
		r = read(fd, got + have, sizeof(got) - have);
		if (r <= 0)
			fail("read: %s", r < 0 ? strerror(errno) : "end of file");
		have += (size_t)r;
	}
	if (have != len || memcmp(got, want, len) != 0)
		fail("a %zu-byte message arrived as %zu different bytes", len, have);
	if (now_s() - t0 > slowest)
		slowest = now_s() - t0;
}

int main(void)
{
	double t0 = now_s();
	int fd, n = 0;

	guest_test_name("packets");
	palm("mode sink");
	fd = open_attached(O_RDWR | O_NOCTTY, 30);
	for (size_t len = 1; len <= 300; len++, n++)
		one_message(fd, len, len);
	for (size_t k = 1; k <= 256; k++, n++)
		one_message(fd, 64 * k, 1000 + k);
	if (palm_stat("in_lost") != 0)
		fail("the Palm lost %llu bytes to cancelled transfers",
		     (unsigned long long)palm_stat("in_lost"));
	note("%d messages (1..300 bytes, 64*k up to 16384) each whole at once; slowest "
	     "%.1f ms; %.1f s in all",
	     n, slowest * 1000, now_s() - t0);
	note("passed");
	close(fd);
	return 0;
}
