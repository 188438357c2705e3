/* SPDX-License-Identifier: MIT */
/*
 * Requests that cannot be answered yet: a read with no data, a write with
 * no room.  The request itself is an opaque pointer (a fuse_req_t at the
 * edge), so this bookkeeping is testable without libfuse.
 *
 * The invariant that keeps the kernel happy: every request is answered
 * exactly once.  A parked request leaves its list only through
 * parked_take(), and whoever takes it must answer it, on every path: data,
 * interrupt (EINTR), hangup, release and shutdown (EIO).
 */
#ifndef PILOTD_PARKED_H
#define PILOTD_PARKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct parked {
	struct parked *next, *prev;
	void *req;     /* the request to answer */
	uint64_t fh;   /* the open file it came through */
	size_t size;   /* bytes asked for (read) or offered (write) */
	size_t done;   /* a write's bytes already queued (OPOST takes a part at a time) */
	uint8_t *data; /* a write's or an ioctl's payload, owned by the entry */
	bool interrupted;
	uint32_t uid;	 /* whose shares it counts in: its file's opener's kuid, or the opener's */
	uint64_t userns; /* ... and user namespace (port.h "Bounds") */
	bool admin;	 /* its caller had CAP_SYS_ADMIN: it passed the shares */
	bool nonblock;	 /* an open with O_NONBLOCK: it waits only for a closing wait */
	bool buffered;	 /* a write: a drain of the kernel's write buffer (port_write_buffered()) */
	bool flushed;	 /* ... whose bytes an output flush dropped: to answer whole */
	uint64_t started_ms; /* reads: when the read began (VTIME) */
	/* opens: the kernel's handle to push the file's input under (port.h) */
	uint64_t input_key;
	bool input_keyed;
	/* ioctls waiting for the output to drain or the carrier to change */
	unsigned int cmd;
	uintptr_t arg;
	size_t out_size;
	bool compat;
	bool caller_admin;
	bool input_back; /* waits for the kernel's pushed bytes (port_push.c) */
};

struct parked_list {
	struct parked *head, *tail;
	size_t count;
};

/* Park a request at the tail; data (may be NULL) is copied. */
struct parked *parked_add(struct parked_list *l, void *req, uint64_t fh, const void *data,
			  size_t size);
/* Unlink p; the caller now owns it, must answer p->req, then parked_free(). */
struct parked *parked_take(struct parked_list *l, struct parked *p);
void parked_free(struct parked *p);
struct parked *parked_find(const struct parked_list *l, const void *req);
/* The first entry that belongs to fh (or any, with fh PARKED_ANY_FH). */
struct parked *parked_first_of(const struct parked_list *l, uint64_t fh);
/* The first entry marked interrupted, or NULL. */
struct parked *parked_first_interrupted(const struct parked_list *l);
/* Put a taken entry back at the tail (its request still waits). */
void parked_put_back(struct parked_list *l, struct parked *p);

#define PARKED_ANY_FH UINT64_MAX

#endif
