// SPDX-License-Identifier: MIT
/*
 * count-calls.so: preloaded into pilotd (LD_PRELOAD) inside the guest, it
 * counts the calls that make up pilotd's work per packet, by type, into a
 * shared file /tmp/count-calls.PID that bench/per-packet reads while pilotd
 * runs: the first NAMES_SIZE bytes name the counters (one line), 64-bit
 * counters follow.  A count does not depend on how loaded the host is, a
 * time does.
 *
 * usbfs ioctls (SUBMITURB, REAPURBNDELAY ok / EAGAIN, DISCARDURB), poll
 * (libusb's), epoll_wait (pilotd's loop; returns and events), read and
 * writev (CUSE requests and answers), timerfd_settime, select and pselect
 * (a desktop's waits on a serial port; traced only), clock_gettime, and
 * libusb's handle_events, get_next_timeout, submit and cancel.  Two
 * histograms: the URBs out at each of libusb's polls ("depth"), and the
 * URBs submitted before a round still out when its reaping ends with
 * EAGAIN ("left": 0 means the device had nothing queued, the pipe ran dry).
 *
 * With TRACE_CALLS=N in the environment it also records the first N system
 * calls it wraps (bench/echo-trace, bench/slp-trace): into
 * /tmp/trace-calls.PID, four 64-bit words each, the CLOCK_MONOTONIC
 * nanoseconds at entry and at return, what (call << 56 | fd << 24 | an
 * ioctl's type and number, with a submit's endpoint in bits 16-23; for a
 * select or pselect, fd is its nfds - 1 and the low bits say which sets it
 * was given: 1 read, 2 write, 4 except), the result (-errno on failure).
 * Preloaded into two processes of one guest, their records line up on one
 * clock.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libusb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/usbdevice_fs.h>

#define NAMES_SIZE 2048
#define HIST	   33 /* 0 .. 32 URBs out, the last also counts more */

enum {
	C_SUBMIT,
	C_REAP,
	C_REAP_EAGAIN,
	C_DISCARD,
	C_IOCTL,
	C_POLL,
	C_EPOLL,
	C_EPOLL_EVENTS,
	C_READ,
	C_WRITEV,
	C_WRITE,
	C_TIMERFD,
	C_CLOCK,
	C_HANDLE_EVENTS,
	C_NEXT_TIMEOUT,
	C_SUBMIT_TRANSFER,
	C_CANCEL_TRANSFER,
	C_DEPTH,
	C_LEFT = C_DEPTH + HIST,
	C_COUNT = C_LEFT + HIST,
};

static const char *const names[C_DEPTH] = {
	[C_SUBMIT] = "submiturb",
	[C_REAP] = "reap",
	[C_REAP_EAGAIN] = "reap_eagain",
	[C_DISCARD] = "discardurb",
	[C_IOCTL] = "ioctl_other",
	[C_POLL] = "poll",
	[C_EPOLL] = "epoll_wait",
	[C_EPOLL_EVENTS] = "epoll_events",
	[C_READ] = "read",
	[C_WRITEV] = "writev",
	[C_WRITE] = "write",
	[C_TIMERFD] = "timerfd_settime",
	[C_CLOCK] = "clock_gettime",
	[C_HANDLE_EVENTS] = "handle_events",
	[C_NEXT_TIMEOUT] = "get_next_timeout",
	[C_SUBMIT_TRANSFER] = "submit_transfer",
	[C_CANCEL_TRANSFER] = "cancel_transfer",
};

enum { T_READ = 1, T_WRITE, T_WRITEV, T_IOCTL, T_POLL, T_EPOLL, T_TIMERFD, T_SELECT, T_PSELECT };

struct trace_rec {
	uint64_t t0, t1, what;
	int64_t ret;
};

static struct trace_rec *trace_buf;
static uint64_t trace_max, trace_n;
static __typeof__(&clock_gettime) real_clock;

static uint64_t spare[C_COUNT];
static uint64_t *c = spare;
static uint64_t round_start; /* C_SUBMIT at libusb's latest poll */

static void write_names(char *to)
{
	size_t n = 0;

	for (int i = 0; i < C_DEPTH; i++)
		n += (size_t)snprintf(to + n, NAMES_SIZE - n, "%s ", names[i]);
	for (int i = 0; i < HIST; i++)
		n += (size_t)snprintf(to + n, NAMES_SIZE - n, "depth%d ", i);
	for (int i = 0; i < HIST; i++)
		n += (size_t)snprintf(to + n, NAMES_SIZE - n, "left%d ", i);
	to[n - 1] = '\n';
}

#define REAL(name) ((__typeof__(&name))real(#name))

static void *real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* /tmp/NAME.PID of size bytes, shared with whoever reads it, or NULL. */
static void *map_shared(const char *name, size_t size)
{
	char path[64];
	void *map = MAP_FAILED;
	int fd;

	snprintf(path, sizeof(path), "/tmp/%s.%d", name, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)size) == 0)
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return map == MAP_FAILED ? NULL : map;
}

static void trace_init(void)
{
	const char *n = getenv("TRACE_CALLS");

	real_clock = REAL(clock_gettime);
	trace_max = n ? strtoull(n, NULL, 10) : 0;
	if (trace_max && real_clock)
		trace_buf = map_shared("trace-calls", (size_t)trace_max * sizeof(struct trace_rec));
}

static uint64_t trace_now(void)
{
	struct timespec ts;

	if (!trace_buf)
		return 0;
	real_clock(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One call into the trace; r is the call's result, errno its error. */
static void trace(int call, int fd, unsigned long req, uint64_t t0, long r)
{
	uint64_t i;
	int e = errno;

	if (!trace_buf)
		return;
	i = __atomic_fetch_add(&trace_n, 1, __ATOMIC_RELAXED);
	if (i < trace_max)
		trace_buf[i] = (struct trace_rec){ t0, trace_now(),
						   ((uint64_t)call << 56) | ((uint64_t)(unsigned)fd << 24) |
							   (req & 0xffffff),
						   r < 0 ? -e : r };
	errno = e;
}

__attribute__((constructor)) static void init(void)
{
	char *map = map_shared("count-calls", NAMES_SIZE + sizeof(spare));

	if (map) {
		write_names(map);
		c = (uint64_t *)(map + NAMES_SIZE);
	}
	trace_init();
}

static void count(int i)
{
	__atomic_fetch_add(&c[i], 1, __ATOMIC_RELAXED);
}

static int hist(uint64_t n)
{
	return n < HIST ? (int)n : HIST - 1;
}

int ioctl(int fd, unsigned long req, ...)
{
	static __typeof__(&ioctl) next;
	va_list ap;
	void *arg;
	uint64_t t0;
	int r;

	if (!next)
		next = REAL(ioctl);
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	t0 = trace_now();
	r = next(fd, req, arg);
	/* a submit's endpoint in bits 16-23 (the request's size is known) */
	trace(T_IOCTL, fd,
	      req == USBDEVFS_SUBMITURB ? (req & 0xffff) | (unsigned long)((struct usbdevfs_urb *)arg)->endpoint << 16
					: req & 0xffff,
	      t0, r);
	if (req == USBDEVFS_SUBMITURB) {
		count(C_SUBMIT);
	} else if (req == USBDEVFS_REAPURBNDELAY && r < 0 && errno == EAGAIN) {
		count(C_REAP_EAGAIN);
		count(C_LEFT + hist(round_start > c[C_REAP] ? round_start - c[C_REAP] : 0));
	} else if (req == USBDEVFS_REAPURBNDELAY) {
		count(C_REAP);
	} else {
		count(req == USBDEVFS_DISCARDURB ? C_DISCARD : C_IOCTL);
	}
	return r;
}

int poll(struct pollfd *fds, nfds_t n, int ms)
{
	static __typeof__(&poll) next;
	uint64_t t0 = trace_now();
	int r;

	if (!next)
		next = REAL(poll);
	count(C_POLL);
	count(C_DEPTH + hist(c[C_SUBMIT] - c[C_REAP]));
	round_start = c[C_SUBMIT];
	r = next(fds, n, ms);
	trace(T_POLL, n > 0 ? fds[0].fd : -1, (unsigned long)n, t0, r);
	return r;
}

int epoll_wait(int ep, struct epoll_event *ev, int max, int ms)
{
	static __typeof__(&epoll_wait) next;
	uint64_t t0 = trace_now();
	int r;

	if (!next)
		next = REAL(epoll_wait);
	r = next(ep, ev, max, ms);
	trace(T_EPOLL, ep, (unsigned long)ms, t0, r);
	count(C_EPOLL);
	if (r > 0)
		__atomic_fetch_add(&c[C_EPOLL_EVENTS], (uint64_t)r, __ATOMIC_RELAXED);
	return r;
}

ssize_t read(int fd, void *buf, size_t n)
{
	static __typeof__(&read) next;
	uint64_t t0 = trace_now();
	ssize_t r;

	if (!next)
		next = REAL(read);
	count(C_READ);
	r = next(fd, buf, n);
	trace(T_READ, fd, 0, t0, r);
	return r;
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	static __typeof__(&writev) next;
	uint64_t t0 = trace_now();
	ssize_t r;

	if (!next)
		next = REAL(writev);
	count(C_WRITEV);
	r = next(fd, iov, n);
	trace(T_WRITEV, fd, 0, t0, r);
	return r;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static __typeof__(&write) next;
	uint64_t t0 = trace_now();
	ssize_t r;

	if (!next)
		next = REAL(write);
	count(C_WRITE);
	r = next(fd, buf, n);
	trace(T_WRITE, fd, 0, t0, r);
	return r;
}

/* which of a select's sets were given, as its trace's request */
static unsigned long fd_sets(const fd_set *rd, const fd_set *wr, const fd_set *ex)
{
	return (rd ? 1u : 0u) | (wr ? 2u : 0u) | (ex ? 4u : 0u);
}

int select(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
	static __typeof__(&select) next;
	uint64_t t0 = trace_now();
	int r;

	if (!next)
		next = REAL(select);
	r = next(n, rd, wr, ex, tv);
	trace(T_SELECT, n - 1, fd_sets(rd, wr, ex), t0, r);
	return r;
}

int pselect(int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *ts,
	    const sigset_t *mask)
{
	static __typeof__(&pselect) next;
	uint64_t t0 = trace_now();
	int r;

	if (!next)
		next = REAL(pselect);
	r = next(n, rd, wr, ex, ts, mask);
	trace(T_PSELECT, n - 1, fd_sets(rd, wr, ex), t0, r);
	return r;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *to, struct itimerspec *old)
{
	static __typeof__(&timerfd_settime) next;
	uint64_t t0 = trace_now();
	int r;

	if (!next)
		next = REAL(timerfd_settime);
	count(C_TIMERFD);
	r = next(fd, flags, to, old);
	trace(T_TIMERFD, fd, 0, t0, r);
	return r;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static __typeof__(&clock_gettime) next;

	if (!next)
		next = REAL(clock_gettime);
	count(C_CLOCK);
	return next(id, ts);
}

int libusb_handle_events_timeout_completed(libusb_context *ctx, struct timeval *tv, int *done)
{
	static __typeof__(&libusb_handle_events_timeout_completed) next;

	if (!next)
		next = REAL(libusb_handle_events_timeout_completed);
	count(C_HANDLE_EVENTS);
	return next(ctx, tv, done);
}

int libusb_get_next_timeout(libusb_context *ctx, struct timeval *tv)
{
	static __typeof__(&libusb_get_next_timeout) next;

	if (!next)
		next = REAL(libusb_get_next_timeout);
	count(C_NEXT_TIMEOUT);
	return next(ctx, tv);
}

int libusb_submit_transfer(struct libusb_transfer *t)
{
	static __typeof__(&libusb_submit_transfer) next;

	if (!next)
		next = REAL(libusb_submit_transfer);
	count(C_SUBMIT_TRANSFER);
	return next(t);
}

int libusb_cancel_transfer(struct libusb_transfer *t)
{
	static __typeof__(&libusb_cancel_transfer) next;

	if (!next)
		next = REAL(libusb_cancel_transfer);
	count(C_CANCEL_TRANSFER);
	return next(t);
}
