/* SPDX-License-Identifier: MIT */
/*
 * The CUSE front: /dev/pilot as the kernel's CUSE driver sees it.  It
 * turns each FUSE request into a call on the port (core/port.h) and the
 * port's answers back into FUSE replies; it decides nothing itself.
 */
#ifndef PILOTD_CUSE_FRONT_H
#define PILOTD_CUSE_FRONT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/loop.h"
#include "core/port.h"

struct fuse_session;

struct cuse_front {
	struct loop *loop;
	struct port *port;
	const char *devname;
	struct fuse_session *se;
	struct watch watch;
	void *fbuf_mem;
	size_t fbuf_size;
	bool closed; /* the kernel ended the CUSE connection */
	bool poll_kh_seen; /* the request in hand is a FUSE_POLL, of poll_kh */
	uint64_t poll_kh;
	bool poll_events; /* CUSE_INIT offered FUSE_NOTIFY_POLL_EVENTS (fuse_wire.h) */
	/* CUSE_INIT offered FUSE_NOTIFY_STREAM_DATA (fuse_wire.h), and pilotd
	 * may use it (no_stream_data: pilotd runs with --no-stream-data) */
	bool stream_data, no_stream_data;
	/* CUSE_INIT offered to take writes (CUSE_STREAM_WRITE, fuse_wire.h),
	 * and pilotd lets it (no_stream_write: pilotd runs with
	 * --no-stream-write, and declines it at init) */
	bool stream_write, no_stream_write;
	bool open_kh_seen; /* the request in hand is a FUSE_OPEN with its kh */
	uint64_t open_kh;
	/* a take-back (front_take_back_input()) whose reply has not come,
	 * under take_back_unique; take_backs: how many were asked */
	bool take_back_out;
	uint64_t take_back_unique, take_backs;
	bool stopping;
	/* called once the node exists (the kernel took the init reply) */
	void (*ready)(void *ctx);
	void *ready_ctx;
};

/* The largest read answer one CUSE request carries. */
#define FRONT_READ_MAX (128u * 1024)

int front_start(struct cuse_front *fr, const char *argv0);
void front_stop(struct cuse_front *fr);

/* The port's answers, as FUSE replies (req is a fuse_req_t). */
int front_answer_open(void *req, uint64_t fh);
void front_answer_data(void *req, const void *buf, size_t len);
void front_answer_written(void *req, size_t len);
void front_answer_ioctl(void *req, const void *out, size_t len);
void front_answer_ioctl_fetch(void *req, uintptr_t arg, size_t in, size_t out);
void front_answer_err(void *req, int err);
void front_parked(void *req);
/* Has the thread that made req CAP_SYS_ADMIN, in pilotd's user namespace, now? */
bool front_caller_admin(void *req);
void front_notify_poll(void *poll_handle);
void front_drop_poll_handle(void *poll_handle);
/*
 * FUSE_NOTIFY_POLL_EVENTS under key (a kh); -EOPNOTSUPP: the kernel did not
 * offer it at init (nothing is written), or refused it.
 */
int front_push_events(struct cuse_front *fr, uint64_t key, unsigned int events,
		      unsigned int wake);

/*
 * FUSE_NOTIFY_STREAM_DATA: len bytes (1 to STREAM_DATA_MAX) of the file
 * key's input to the kernel's buffer.  0: taken; -ENOSPC: no room, nothing
 * taken; -EBUSY: a read request of the file is in flight, nothing taken;
 * -EAGAIN: a request waits on /dev/cuse, to be served first (a read
 * among them must not be passed, core/port_push.c); -ENOENT: the kernel
 * released the file; -EOPNOTSUPP: not offered at init, or refused.
 */
int front_push_input(struct cuse_front *fr, uint64_t key, const void *buf, size_t len);

/*
 * FUSE_NOTIFY_STREAM_RETRIEVE: ask for the bytes of file key that its
 * read()s did not take; the kernel's reply goes to port_input_returned()
 * from the CUSE fd's handler.  0: asked; -ENOENT: the kernel released
 * the file; -EBUSY: one is out; -EOPNOTSUPP: not offered at init; other
 * -errno: refused (-EINVAL: the kernel cannot), or the connection ended.
 */
int front_take_back_input(struct cuse_front *fr, uint64_t key);

#endif
