// SPDX-License-Identifier: MIT
/*
 * 1 MiB written to /dev/pilot reaches the simulated Palm byte for byte,
 * and 1 MiB the Palm sends reaches a reader byte for byte.  Write and read
 * sizes vary so that chunk boundaries fall everywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestlib.h"
#include "testpattern.h"

#define TOTAL (1u << 20)

static const size_t chunk_sizes[] = { 1, 63, 64, 65, 4096, 65536, 100000, 7 };

static void send_to_palm(int fd, uint8_t *data)
{
	struct testpattern tp;
	size_t done = 0, i = 0;
	double t0;

	testpattern_init(&tp, 1);
	testpattern_fill(&tp, data, TOTAL);
	t0 = now_s();
	while (done < TOTAL) {
		size_t n = chunk_sizes[i++ % 8];

		n = n < TOTAL - done ? n : TOTAL - done;
		write_full(fd, data + done, n);
		done += n;
	}
	palm_wait_stat("out_bytes", TOTAL, 120);
	note("1 MiB written and received by the Palm in %.2f s", now_s() - t0);
	if (palm_stat("out_fnv") != fnv1a64(FNV1A64_INIT, data, TOTAL))
		fail("the Palm received 1 MiB, but not the bytes that were written");
}

static void receive_from_palm(int fd, uint8_t *expect, uint8_t *got)
{
	struct testpattern tp;
	size_t done = 0, i = 0;
	double t0;

	testpattern_init(&tp, 2);
	testpattern_fill(&tp, expect, TOTAL);
	palm("send-pattern 2 %u", TOTAL);
	t0 = now_s();
	while (done < TOTAL) {
		size_t n = chunk_sizes[(i++ + 3) % 8];
		ssize_t r = read(fd, got + done, n < TOTAL - done ? n : TOTAL - done);

		if (r <= 0)
			fail("read after %zu bytes: %s", done, r < 0 ? strerror(errno) : "EOF");
		done += (size_t)r;
	}
	note("1 MiB sent by the Palm and read in %.2f s", now_s() - t0);
	for (size_t k = 0; k < TOTAL; k++)
		if (got[k] != expect[k])
			fail("byte %zu read as 0x%02x, the Palm sent 0x%02x", k, got[k], expect[k]);
}

int main(void)
{
	uint8_t *a = malloc(TOTAL), *b = malloc(TOTAL);
	int fd;

	guest_test_name("roundtrip");
	if (!a || !b)
		fail("out of memory");
	palm("mode sink");
	palm("reset-stats");
	fd = open_attached(O_RDWR, 30);
	if (fd < 0)
		fail("open %s: %s", PILOT_DEV, strerror(errno));
	send_to_palm(fd, a);
	receive_from_palm(fd, a, b);
	if (palm_stat("queued") != 0)
		fail("the Palm still has bytes queued after 1 MiB was read");
	close(fd);
	note("ok");
	return 0;
}
