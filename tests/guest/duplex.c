// SPDX-License-Identifier: MIT
/*
 * Full duplex, byte for byte: one thread writes MIB MiB (default 64) of a
 * test pattern to /dev/pilot while another reads the simulated Palm's echo
 * of it and checks every byte.  The writer is far faster than the one-
 * packet IN transfers, so the Palm's echo buffer fills and it holds OUT
 * packets (NAKs) for most of the run: backpressure both ways, for minutes.
 *
 *   duplex [MIB]
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"
#include "testpattern.h"

#define SEED	      7
#define STALL_LIMIT_S 30 /* no byte for this long fails the test */

static const size_t chunk_sizes[] = { 65536, 1, 4096, 63, 100000, 64, 16384, 65, 131072, 7 };
#define NCHUNKS (sizeof(chunk_sizes) / sizeof(chunk_sizes[0]))

static int fd;
static size_t total;

static void *writer(void *arg)
{
	static uint8_t buf[131072];
	struct testpattern tp;
	size_t done = 0, i = 0;

	(void)arg;
	testpattern_init(&tp, SEED);
	while (done < total) {
		size_t n = chunk_sizes[i++ % NCHUNKS];

		n = n < total - done ? n : total - done;
		testpattern_fill(&tp, buf, n);
		write_full(fd, buf, n);
		done += n;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static uint8_t got[100000];
	struct testpattern tp;
	struct termios t;
	size_t done = 0, i = 3;
	pthread_t w;
	double t0;

	guest_test_name("duplex");
	total = (argc > 1 ? strtoul(argv[1], NULL, 0) : 64) << 20;
	palm("mode echo");
	palm("reset-stats");
	fd = open_attached(O_RDWR | O_NOCTTY, 30);
	if (tcgetattr(fd, &t) < 0)
		fail("tcgetattr: %s", strerror(errno));
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	if (tcsetattr(fd, TCSANOW, &t) < 0)
		fail("tcsetattr: %s", strerror(errno));
	testpattern_init(&tp, SEED);
	t0 = now_s();
	if (pthread_create(&w, NULL, writer, NULL) != 0)
		fail("pthread_create failed");
	while (done < total) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		size_t n = chunk_sizes[i++ % NCHUNKS];
		ssize_t r;

		n = n < sizeof(got) ? n : sizeof(got);
		n = n < total - done ? n : total - done;
		if (poll(&p, 1, STALL_LIMIT_S * 1000) != 1)
			fail("nothing came back for %d s after %zu of %zu bytes", STALL_LIMIT_S,
			     done, total);
		r = read(fd, got, n);
		if (r <= 0)
			fail("read after %zu bytes: %s", done, r < 0 ? strerror(errno) : "EOF");
		for (ssize_t k = 0; k < r; k++) {
			uint8_t want = testpattern_next(&tp);

			if (got[k] != want)
				fail("byte %zu came back as 0x%02x, 0x%02x was written",
				     done + (size_t)k, got[k], want);
		}
		done += (size_t)r;
	}
	pthread_join(w, NULL);
	note("%zu MiB both ways at once in %.1f s (%.2f MB/s each way)", total >> 20, now_s() - t0,
	     (double)total / 1e6 / (now_s() - t0));
	if (palm_stat("out_bytes") != total)
		fail("the Palm took %llu bytes, %zu were written",
		     (unsigned long long)palm_stat("out_bytes"), total);
	if (palm_stat("in_lost") != 0)
		fail("IN transfers cancelled with data in them");
	/* the point of the size: the writer really was held back */
	if (palm_stat("out_held") == 0)
		fail("the Palm never had to hold an OUT packet: no backpressure was tested");
	note("the Palm held %llu OUT packets while its echo buffer was full",
	     (unsigned long long)palm_stat("out_held"));
	close(fd);
	return 0;
}
