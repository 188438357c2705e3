/* SPDX-License-Identifier: MIT */
/*
 * A fake CUSE front and a fake transport around a struct port, for the
 * unit tests and the fuzzers: every answer is recorded (its kind, error,
 * bytes and order), every request must be answered exactly once, the
 * transport's hooks are counted with their nesting depth (and may call
 * back into the port, as the real transports may), and what the handheld
 * took is kept in order.  Requests are stand-ins (addresses in an array),
 * as fuse_req_t are to the port; an answer to anything else aborts.
 *
 * Behind the fake transport may stand a real pump (core/pump.h), wired to
 * the hooks as main.c wires a link's (link.h), and a test's own model:
 * on_hook runs inside each transport hook, on_answer after each answer is
 * recorded (a fuzzer's checks and bookkeeping).
 */
#ifndef PILOTD_TEST_PORT_HARNESS_H
#define PILOTD_TEST_PORT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/port.h"

#define PH_DATA_MAX 4096 /* bytes of an answer kept */

enum ph_kind { PH_NONE, PH_OPEN, PH_DATA, PH_WRITTEN, PH_IOCTL, PH_FETCH, PH_ERR };
enum ph_hook { PH_TX_READY, PH_TX_ABORT, PH_RX_ROOM, PH_RX_STOP, PH_LAST_CLOSE };

struct pump;

struct ph_answer {
	int count; /* answers given: must end as 1 */
	enum ph_kind kind;
	int err;
	uint64_t fh;
	size_t len;
	uint8_t *data; /* up to PH_DATA_MAX bytes of it (h->kept: touched only when kept) */
	int seq;       /* when it was answered, in hook calls */
};

struct ph {
	struct port *port;
	struct ph_answer *ans;
	uint8_t *kept; /* the answers' bytes, PH_DATA_MAX a request */
	char *reqs;    /* stand-ins for fuse_req_t */
	int nreq, max_req;

	/* the front */
	int parked, notified, dropped_handles;
	void (*on_notify)(void *handle); /* optional: which poller was woken */
	/* push_events: calls made, the last accepted (key, events, wake, seq) */
	int pushes, push_seq;
	uint64_t push_key;
	unsigned int push_events, push_wake;
	bool push_refused; /* as a kernel without FUSE_NOTIFY_POLL_EVENTS */
	void (*on_push)(struct ph *h, uint64_t key, unsigned int events, unsigned int wake);
	bool opener_gone; /* answer_open reports the opener gone */
	/*
	 * push_input: the kernel's buffer of the pushed-to file (a read()
	 * takes from it without a request: ph_kernel_read()), its size
	 * (kbuf_room, at most PORT_PUSH_INPUT_MAX; 0 at ph_init: the full
	 * size), pushes tried, the error a refusing kernel gives (0: none);
	 * open_input_key: ph_open() names the file so (0: the kernel offered
	 * nothing, it is not keyed)
	 */
	uint8_t kbuf[PORT_PUSH_INPUT_MAX];
	size_t kbuf_len, kbuf_room;
	int input_push_calls;
	int input_push_err;
	uint64_t input_key, open_input_key;
	/*
	 * take_back_input (kernel-patches/stream-data 0003): take-backs asked,
	 * the error a refusing kernel gives (0: none; no_take_back: the hook
	 * is absent, as on a kernel without the series), the key of the one
	 * out (take_back_out); ph_kernel_gives_back() answers it.
	 */
	int take_back_calls, take_back_err;
	bool take_back_out, no_take_back;
	uint64_t take_back_key;
	/*
	 * caller_admin: who makes the reads, writes and ioctls (by default
	 * each file's opener, capable if it opened so); how often it was asked
	 */
	enum { PH_CALLER_OPENER, PH_CALLER_CAPABLE, PH_CALLER_INCAPABLE } caller;
	int admin_asked;
	/* the transport */
	int tx_ready, tx_abort, rx_room, rx_stop, last_close;
	int seq, tx_ready_seq;
	int depth, max_depth;			    /* transport hooks on the stack: must stay 1 */
	bool depart_in_rx_room, depart_in_tx_ready; /* the handheld leaves inside the hook */
	bool take_in_tx_ready;			    /* the handheld takes all inside tx_ready */
	/* set while a transfer's completion runs: no hook may run then */
	bool in_completion;
	int hooks_in_completion;
	/* a pump behind the hooks (NULL: none), and its clock: clock() or now */
	struct pump *pump;
	uint64_t now;
	uint64_t (*clock)(void);
	/* a test's own: inside each transport hook (after the pump's part) */
	void (*on_hook)(struct ph *h, enum ph_hook hook);
	/* after each answer is recorded; for an open, what the front returns
	 * (0, or -ENOENT: the opener is gone) */
	int (*on_answer)(struct ph *h, void *req, const struct ph_answer *a);
	void *user;
	/* what the handheld took, in order (up to handheld_size, then counted) */
	uint8_t *handheld;
	size_t handheld_len, handheld_size, handheld_lost;
};

/* The bounds of test_port.c: small queues, so tests reach them. */
extern const struct port_config ph_config_small;
/* The bounds pilotd runs with (main.c's queues, port.h's limits). */
extern const struct port_config ph_config_pilotd;

/* port_init() with the fake hooks; max_req requests at most; returns 0 or -errno. */
int ph_init(struct ph *h, struct port *p, const struct port_config *cfg, int max_req);
/* port_shutdown(), every file released, port_shutdown() again (the opens a
 * release let through); returns ph_unanswered_or_twice(). */
int ph_close_all(struct ph *h);
/* ph_close_all(), port_free(), the harness freed. */
void ph_free(struct ph *h);

void *ph_req(struct ph *h);
struct ph_answer *ph_ans(struct ph *h, void *req);
/* Requests answered other than exactly once, each reported on stderr. */
int ph_unanswered_or_twice(struct ph *h);

/* An open; fh, or 0 if not answered OPEN. With listen, a poll follows. */
uint64_t ph_open(struct ph *h, uint32_t uid, bool nonblock, bool listen);
void *ph_read(struct ph *h, uint64_t fh, size_t size, bool nonblock, uint64_t now);
/* A read() the kernel answers from its buffer: up to max bytes into buf; how many. */
size_t ph_kernel_read(struct ph *h, void *buf, size_t max);
/* The kernel's reply to the take-back out: its buffer, emptied, to port_input_returned(). */
void ph_kernel_gives_back(struct ph *h);
void *ph_write(struct ph *h, uint64_t fh, const void *buf, size_t len, bool nonblock);
void *ph_ioctl(struct ph *h, uint64_t fh, unsigned int cmd, uintptr_t arg, const void *in,
	       size_t in_len, size_t out_len, bool caller_admin);
/* The handheld takes up to max bytes and acknowledges them; returns how many. */
size_t ph_handheld_takes(struct ph *h, size_t max);
/* The same, up to size bytes, which are also copied to buf. */
size_t ph_handheld_takes_into(struct ph *h, void *buf, size_t size);

static inline bool ph_is_err(struct ph *h, void *req, int err)
{
	struct ph_answer *a = ph_ans(h, req);

	return a->count == 1 && a->kind == PH_ERR && a->err == err;
}

/* The index of a request, from 0 in the order they were made. */
static inline int ph_index(struct ph *h, void *req)
{
	return (int)((char *)req - h->reqs);
}

#endif
