/* SPDX-License-Identifier: MIT */
/*
 * The event loop: one epoll set, a watch per fd.  Any watch may be removed
 * while a batch of events is being handled (libusb closes the device's fd
 * from inside its own event handling when a handheld leaves): loop_del()
 * forgets the events still pending for it in the batch, so no callback
 * runs for a watch that is gone, or for the next one to reuse its slot.
 */
#ifndef PILOTD_LOOP_H
#define PILOTD_LOOP_H

#include <stdint.h>
#include <sys/epoll.h>

struct watch {
	int fd;
	void (*ready)(void *ctx, uint32_t events);
	void *ctx;
};

#define LOOP_BATCH 16

struct loop {
	int epfd;
	struct epoll_event batch[LOOP_BATCH];
	int batch_len, batch_next; /* events of the batch still to handle */
};

/*
 * Milliseconds on the monotonic clock: the time base of the port.  Once a
 * round has run, the time the last round woke at (read once, when
 * epoll_wait() returned), until the next one wakes or loop_read_clock():
 * everything a round does (its callbacks, the links' and the port's work
 * after it, the next timeout) judges by that time, and a round that only
 * answers requests pays for one reading of the clock.  Before the first
 * round of a loop, the clock at every call.
 */
uint64_t loop_now_ms(void);
/*
 * Read the clock again for the rest of the round, after a call that may
 * have waited (a usbfs ioctl takes the device's lock), so that what comes
 * after it (bytes a reap brought, whose arrival starts VTIME's timer) is
 * stamped with when it came.  Before the first round it has nothing to do.
 */
void loop_read_clock(void);

int loop_init(struct loop *lp);
void loop_free(struct loop *lp);
int loop_add(struct loop *lp, struct watch *w, uint32_t events);
int loop_mod(struct loop *lp, struct watch *w, uint32_t events);
void loop_del(struct loop *lp, struct watch *w);
/* Wait up to timeout_ms (-1: no limit) and run the ready watches.
 * Returns how many events there were (0: timed out), or -errno. */
int loop_run_once(struct loop *lp, int timeout_ms);

#endif
