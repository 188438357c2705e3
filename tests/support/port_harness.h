/* SPDX-License-Identifier: MIT */
/*
 * A fake CUSE front and a fake transport around a struct port, for the
 * unit tests and the fuzzers: every answer is recorded (its kind, error,
 * bytes and order), every request must be answered exactly once, the
 * transport's hooks are counted (and may call back into the port, as the
 * real transports may), and what the handheld took is kept in order.
 * Requests are stand-ins (addresses in an array), as fuse_req_t are to
 * the port.
 */
#ifndef PILOTD_TEST_PORT_HARNESS_H
#define PILOTD_TEST_PORT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/port.h"

#define PH_DATA_MAX 4096 /* bytes of an answer kept */

enum ph_kind { PH_NONE, PH_OPEN, PH_DATA, PH_WRITTEN, PH_IOCTL, PH_FETCH, PH_ERR };

struct ph_answer {
	int count; /* answers given: must end as 1 */
	enum ph_kind kind;
	int err;
	uint64_t fh;
	size_t len;
	uint8_t data[PH_DATA_MAX];
	int seq; /* when it was answered, in hook calls */
};

struct ph {
	struct port *port;
	struct ph_answer *ans;
	char *reqs; /* stand-ins for fuse_req_t */
	int nreq, max_req;

	/* the front */
	int parked, notified, dropped_handles;
	bool opener_gone; /* answer_open reports the opener gone */
	/* the transport */
	int tx_ready, tx_abort, rx_room, last_close;
	int seq, tx_ready_seq;
	int depth, max_depth;			    /* transport hooks on the stack: must stay 1 */
	bool depart_in_rx_room, depart_in_tx_ready; /* the handheld leaves inside the hook */
	bool take_in_tx_ready;			    /* the handheld takes all inside tx_ready */
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
/* port_shutdown(), the files released, port_free(), the harness freed. */
void ph_free(struct ph *h);

void *ph_req(struct ph *h);
struct ph_answer *ph_ans(struct ph *h, void *req);
/* Requests answered other than exactly once, each reported on stderr. */
int ph_unanswered_or_twice(struct ph *h);

/* An open; fh, or 0 if not answered OPEN. With listen, a poll follows. */
uint64_t ph_open(struct ph *h, uint32_t uid, bool nonblock, bool listen);
void *ph_read(struct ph *h, uint64_t fh, size_t size, bool nonblock, uint64_t now);
void *ph_write(struct ph *h, uint64_t fh, const void *buf, size_t len, bool nonblock);
void *ph_ioctl(struct ph *h, uint64_t fh, unsigned int cmd, uintptr_t arg, const void *in,
	       size_t in_len, size_t out_len, bool caller_admin);
/* The handheld takes up to max bytes and acknowledges them; returns how many. */
size_t ph_handheld_takes(struct ph *h, size_t max);

static inline bool ph_is_err(struct ph *h, void *req, int err)
{
	struct ph_answer *a = ph_ans(h, req);

	return a->count == 1 && a->kind == PH_ERR && a->err == err;
}

#endif
