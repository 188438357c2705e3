// SPDX-License-Identifier: MIT
/*
 * The headline: with one thread blocked in read() on /dev/pilot, another
 * thread's write() on the same fd returns promptly and its bytes reach the
 * Palm; then the Palm sends, and the blocked read returns them.
 *
 * This is pilotd's doing, on any kernel: its loop parks the read and goes
 * on to the write.  The kernel never serializes a character device's
 * read and write on f_pos_lock, so FOPEN_STREAM plays no part here (the
 * fpos-lock tests show where it does, on a FUSE regular file).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guestlib.h"
#include "testpattern.h"

#define LEN	      4096
#define WRITE_BOUND_S 1.0

static int fd;
static atomic_int reader_tid;
static uint8_t got[LEN];
static atomic_int read_done;
static size_t got_len;

static void *reader(void *arg)
{
	atomic_store(&reader_tid, gettid());
	got_len = read_full(fd, got, LEN);
	atomic_store(&read_done, 1);
	return NULL;
}

int main(void)
{
	uint8_t out[LEN], expect[LEN];
	struct testpattern tp;
	struct timespec deadline;
	pthread_t t;
	double t0, dt;

	guest_test_name("headline");
	palm("mode hold");
	palm("reset-stats");
	fd = open_attached(O_RDWR, 30);
	if (fd < 0)
		fail("open: %s", strerror(errno));
	pthread_create(&t, NULL, reader, NULL);
	/* The reader must be asleep in read(), not merely about to call it. */
	while (!atomic_load(&reader_tid))
		usleep(1000);
	wait_sleeping(getpid(), atomic_load(&reader_tid));
	if (atomic_load(&read_done))
		fail("read returned before the Palm sent anything");

	testpattern_init(&tp, 3);
	testpattern_fill(&tp, out, LEN);
	t0 = now_s();
	write_full(fd, out, LEN);
	dt = now_s() - t0;
	if (dt > WRITE_BOUND_S)
		fail("write took %.3f s while a read was blocked (bound %.1f s)", dt,
		     WRITE_BOUND_S);
	note("write of %d bytes returned in %.1f ms while another thread's read was blocked", LEN,
	     dt * 1000);
	palm_wait_stat("out_bytes", LEN, 10);
	if (palm_stat("out_fnv") != fnv1a64(FNV1A64_INIT, out, LEN))
		fail("the Palm did not receive the written bytes");
	if (atomic_load(&read_done))
		fail("read returned although the Palm has sent nothing");

	testpattern_init(&tp, 4);
	testpattern_fill(&tp, expect, LEN);
	palm("send-pattern 4 %d", LEN);
	palm("release");
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 10;
	if (pthread_timedjoin_np(t, NULL, &deadline) != 0)
		fail("the blocked read did not return within 10 s of the Palm sending");
	if (got_len != LEN || memcmp(got, expect, LEN) != 0)
		fail("the blocked read returned %zu bytes, not the %d the Palm sent", got_len, LEN);
	note("the blocked read returned the Palm's %d bytes", LEN);
	return 0;
}
