// SPDX-License-Identifier: MIT
/*
 * The event loop: a watch removed while its batch is being handled gets no
 * callback from that batch, whichever order epoll reports them in, and even
 * when its slot is zeroed or reused at once (what libusb's fd-removed
 * notifier does when a handheld leaves; issue 8's crash).  loop_now_ms()
 * reads the clock once a round: it stands still inside a round and after
 * it, and moves at the next round, a timed-out one too, or when
 * loop_read_clock() reads it again; a new loop starts on the clock itself.
 */
#include <string.h>
#include <time.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "check.h"
#include "core/loop.h"

static struct loop lp;
static struct watch w[2];
static int calls[2];
static int spare_fd;

static void ready(void *ctx, uint32_t events)
{
	int me = (struct watch *)ctx == &w[0] ? 0 : 1, other = 1 - me;

	calls[me]++;
	/* remove the other one and put something new in its slot at once */
	loop_del(&lp, &w[other]);
	memset(&w[other], 0, sizeof(w[other]));
	w[other] = (struct watch){ .fd = spare_fd, .ready = NULL };
}

/*
 * Spin until the monotonic clock has moved ms milliseconds on.  Counted in
 * nanoseconds: a millisecond count of (b.tv_nsec - a.tv_nsec) / 1000000
 * rounds a negative difference up, and stopped 2.x ms on across a second's
 * boundary (0.27% of spins).
 */
static void spin_ms(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) < ms * 1000000LL);
}

static uint64_t seen[2], reread;

static void note_time(void *ctx, uint32_t events)
{
	(void)ctx, (void)events;
	seen[0] = loop_now_ms();
	spin_ms(3);
	seen[1] = loop_now_ms();
	loop_read_clock(); /* as after a call that waited */
	reread = loop_now_ms();
}

static void one_reading_a_round(void)
{
	struct watch tw;
	uint64_t before, t;

	/* before any round: the clock itself */
	before = loop_now_ms();
	spin_ms(3);
	CHECK(loop_now_ms() >= before + 3);
	CHECK_EQ(loop_init(&lp), 0);
	tw = (struct watch){ .fd = eventfd(1, EFD_CLOEXEC), .ready = note_time };
	CHECK_EQ(loop_add(&lp, &tw, EPOLLIN), 0);
	CHECK_EQ(loop_run_once(&lp, 1000), 1);
	CHECK(seen[0] >= before + 3);
	CHECK_EQ(seen[1], seen[0]); /* 3 ms passed inside the round */
	CHECK(reread >= seen[0] + 3); /* until loop_read_clock() */
	spin_ms(3);
	CHECK_EQ(loop_now_ms(), reread); /* and after it, until the next wakes */
	loop_del(&lp, &tw);
	CHECK_EQ(loop_run_once(&lp, 0), 0);
	t = loop_now_ms();
	CHECK(t >= seen[0] + 6);
	spin_ms(3);
	CHECK_EQ(loop_now_ms(), t);
	close(tw.fd);
	loop_free(&lp);
	/* a new loop has run no round: the clock itself again */
	CHECK_EQ(loop_init(&lp), 0);
	t = loop_now_ms();
	loop_read_clock();
	spin_ms(3);
	CHECK(loop_now_ms() >= t + 3);
	loop_free(&lp);
}

int main(void)
{
	one_reading_a_round();
	for (int round = 0; round < 50; round++) {
		int fds[2];

		CHECK_EQ(loop_init(&lp), 0);
		spare_fd = eventfd(1, EFD_CLOEXEC); /* readable, but never added */
		for (int i = 0; i < 2; i++) {
			fds[i] = eventfd(1, EFD_CLOEXEC); /* readable now */
			w[i] = (struct watch){ .fd = fds[i], .ready = ready, .ctx = &w[i] };
			CHECK_EQ(loop_add(&lp, &w[i], EPOLLIN), 0);
		}
		calls[0] = calls[1] = 0;
		CHECK_EQ(loop_run_once(&lp, 1000), 2); /* both were in one batch */
		CHECK_EQ(calls[0] + calls[1], 1);
		/* the survivor is still watched; the removed one is gone */
		calls[0] = calls[1] = 0;
		CHECK_EQ(loop_run_once(&lp, 0), 1);
		CHECK_EQ(calls[0] + calls[1], 1);
		close(fds[0]);
		close(fds[1]);
		close(spare_fd);
		loop_free(&lp);
	}
	return check_result("test_loop");
}
