// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"

static uint64_t clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The time the current round woke at; valid once a round has run. */
static uint64_t round_ms;
static bool round_ran;

uint64_t loop_now_ms(void)
{
	return round_ran ? round_ms : clock_ms();
}

void loop_read_clock(void)
{
	if (round_ran)
		round_ms = clock_ms();
}

int loop_init(struct loop *lp)
{
	*lp = (struct loop){ .epfd = epoll_create1(EPOLL_CLOEXEC) };
	round_ran = false; /* no round of this loop yet: another's time is not its */
	return lp->epfd < 0 ? -errno : 0;
}

void loop_free(struct loop *lp)
{
	if (lp->epfd >= 0)
		close(lp->epfd);
	lp->epfd = -1;
}

int loop_add(struct loop *lp, struct watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(lp->epfd, EPOLL_CTL_ADD, w->fd, &ev) < 0 ? -errno : 0;
}

int loop_mod(struct loop *lp, struct watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(lp->epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0 ? -errno : 0;
}

void loop_del(struct loop *lp, struct watch *w)
{
	epoll_ctl(lp->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	for (int i = lp->batch_next; i < lp->batch_len; i++)
		if (lp->batch[i].data.ptr == w)
			lp->batch[i].data.ptr = NULL;
}

int loop_run_once(struct loop *lp, int timeout_ms)
{
	int n = epoll_wait(lp->epfd, lp->batch, LOOP_BATCH, timeout_ms), err = errno;

	round_ms = clock_ms();
	round_ran = true;
	if (n < 0)
		return err == EINTR ? 0 : -err;
	lp->batch_len = n;
	for (lp->batch_next = 0; lp->batch_next < lp->batch_len;) {
		const struct epoll_event *ev = &lp->batch[lp->batch_next++];
		struct watch *w = ev->data.ptr;

		if (w)
			w->ready(w->ctx, ev->events);
	}
	lp->batch_len = lp->batch_next = 0;
	return n;
}
