// SPDX-License-Identifier: MIT
/* The fake front and transport of port_harness.h. */
#include <asm/ioctls.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pump.h"
#include "port_harness.h"

const struct port_config ph_config_small = {
	.rxq_size = 4096,
	.txq_size = 4096,
	.read_max = 1024,
	.files_max = 8,
	.parked_max = 64,
	.parked_write_bytes = 8192,
	.closing_wait_ms = 30000,
};

/* pilotd.h RXQ_SIZE, TXQ_SIZE; cuse_front.h FRONT_READ_MAX */
const struct port_config ph_config_pilotd = {
	.rxq_size = 256u * 1024,
	.txq_size = 512u * 1024,
	.read_max = 128u * 1024,
	.files_max = PORT_FILES_MAX,
	.parked_max = PORT_PARKED_MAX,
	.parked_write_bytes = PORT_PARKED_WRITE_BYTES,
	.closing_wait_ms = PORT_CLOSING_WAIT_MS,
	.rx_inflight_max = PUMP_IN_MAX * PUMP_IN_SIZE_MAX,
};

struct ph_answer *ph_ans(struct ph *h, void *req)
{
	return &h->ans[(char *)req - h->reqs];
}

static struct ph_answer *answer(void *ctx, void *req, enum ph_kind kind)
{
	struct ph *h = ctx;
	struct ph_answer *a = ph_ans(h, req);

	a->count++;
	a->kind = kind;
	a->seq = ++h->seq;
	return a;
}

static void keep(struct ph_answer *a, const void *buf, size_t len)
{
	a->len = len;
	if (buf && len) /* end of file comes as NULL, 0 */
		memcpy(a->data, buf, len < PH_DATA_MAX ? len : PH_DATA_MAX);
}

static int h_open(void *ctx, void *req, uint64_t fh)
{
	answer(ctx, req, PH_OPEN)->fh = fh;
	return ((struct ph *)ctx)->opener_gone ? -ENOENT : 0;
}

static void h_data(void *ctx, void *req, const void *buf, size_t len)
{
	keep(answer(ctx, req, PH_DATA), buf, len);
}

static void h_written(void *ctx, void *req, size_t len)
{
	answer(ctx, req, PH_WRITTEN)->len = len;
}

static void h_ioctl(void *ctx, void *req, const void *out, size_t len)
{
	keep(answer(ctx, req, PH_IOCTL), out, len);
}

static void h_fetch(void *ctx, void *req, uintptr_t arg, size_t in, size_t out)
{
	(void)arg, (void)in, (void)out;
	answer(ctx, req, PH_FETCH);
}

static void h_err(void *ctx, void *req, int err)
{
	answer(ctx, req, PH_ERR)->err = err;
}

static void h_parked(void *ctx, void *req)
{
	(void)req;
	((struct ph *)ctx)->parked++;
}

static void h_notify(void *ctx, void *handle)
{
	(void)handle;
	((struct ph *)ctx)->notified++;
}

static void h_drop(void *ctx, void *handle)
{
	(void)handle;
	((struct ph *)ctx)->dropped_handles++;
}

static void hook_enter(struct ph *h)
{
	if (++h->depth > h->max_depth)
		h->max_depth = h->depth;
}

static void h_tx_ready(void *ctx)
{
	struct ph *h = ctx;

	hook_enter(h);
	h->tx_ready++;
	h->tx_ready_seq = ++h->seq;
	if (h->depart_in_tx_ready && h->port->carrier)
		port_carrier_down(h->port);
	if (h->take_in_tx_ready)
		ph_handheld_takes(h, SIZE_MAX);
	h->depth--;
}

static void h_tx_abort(void *ctx)
{
	((struct ph *)ctx)->tx_abort++;
}

static void h_rx_room(void *ctx)
{
	struct ph *h = ctx;

	hook_enter(h);
	h->rx_room++;
	if (h->depart_in_rx_room && h->port->carrier)
		port_carrier_down(h->port);
	h->depth--;
}

static void h_last_close(void *ctx)
{
	((struct ph *)ctx)->last_close++;
}

int ph_init(struct ph *h, struct port *p, const struct port_config *cfg, int max_req)
{
	const struct port_hooks hooks = {
		.ctx = h,
		.answer_open = h_open,
		.answer_data = h_data,
		.answer_written = h_written,
		.answer_ioctl = h_ioctl,
		.answer_ioctl_fetch = h_fetch,
		.answer_err = h_err,
		.parked = h_parked,
		.notify_poll = h_notify,
		.drop_poll_handle = h_drop,
		.tx_ready = h_tx_ready,
		.tx_abort = h_tx_abort,
		.rx_room = h_rx_room,
		.last_close = h_last_close,
	};

	*h = (struct ph){ .port = p, .max_req = max_req, .handheld_size = 1u << 16 };
	h->ans = calloc((size_t)max_req, sizeof(*h->ans));
	h->reqs = calloc((size_t)max_req, 1);
	h->handheld = malloc(h->handheld_size);
	if (!h->ans || !h->reqs || !h->handheld) {
		ph_free(h);
		return -ENOMEM;
	}
	if (port_init(p, cfg, &hooks) < 0) {
		ph_free(h);
		return -ENOMEM;
	}
	return 0;
}

void ph_free(struct ph *h)
{
	if (h->port && h->ans) {
		port_shutdown(h->port);
		while (h->port->files)
			port_release(h->port, h->port->files->fh);
		port_shutdown(h->port);
		port_free(h->port);
	}
	free(h->ans);
	free(h->reqs);
	free(h->handheld);
	*h = (struct ph){ 0 };
}

void *ph_req(struct ph *h)
{
	if (h->nreq >= h->max_req) {
		fprintf(stderr, "port harness: more than %d requests\n", h->max_req);
		abort();
	}
	return &h->reqs[h->nreq++];
}

int ph_unanswered_or_twice(struct ph *h)
{
	int bad = 0;

	for (int i = 0; i < h->nreq; i++) {
		if (h->ans[i].count != 1) {
			fprintf(stderr, "request %d answered %d times\n", i, h->ans[i].count);
			bad++;
		}
	}
	return bad;
}

uint64_t ph_open(struct ph *h, uint32_t uid, bool nonblock, bool listen)
{
	struct port_open_args a = { .uid = uid, .admin = uid == 0, .nonblock = nonblock };
	void *req = ph_req(h);
	struct ph_answer *an = ph_ans(h, req);

	port_open(h->port, req, &a);
	if (an->count != 1 || an->kind != PH_OPEN)
		return 0;
	if (listen)
		port_poll(h->port, an->fh, NULL);
	return an->fh;
}

void *ph_read(struct ph *h, uint64_t fh, size_t size, bool nonblock, uint64_t now)
{
	void *req = ph_req(h);

	port_read(h->port, req, fh, size, nonblock, now);
	return req;
}

void *ph_write(struct ph *h, uint64_t fh, const void *buf, size_t len, bool nonblock)
{
	void *req = ph_req(h);

	port_write(h->port, req, fh, buf, len, nonblock);
	return req;
}

void *ph_ioctl(struct ph *h, uint64_t fh, unsigned int cmd, uintptr_t arg, const void *in,
	       size_t in_len, size_t out_len, bool caller_admin)
{
	struct tty_ioctl io = { .cmd = cmd,
				.arg = arg,
				.in = in,
				.in_len = in_len,
				.out_len = out_len,
				.caller_admin = caller_admin };
	void *req = ph_req(h);

	port_ioctl(h->port, req, fh, &io);
	return req;
}

size_t ph_handheld_takes(struct ph *h, size_t max)
{
	static uint8_t buf[65536];
	size_t n = port_tx_take(h->port, buf, max < sizeof(buf) ? max : sizeof(buf));
	size_t keep = n;

	if (keep > h->handheld_size - h->handheld_len)
		keep = h->handheld_size - h->handheld_len;
	memcpy(h->handheld + h->handheld_len, buf, keep);
	h->handheld_len += keep;
	h->handheld_lost += n - keep;
	port_tx_done(h->port, n);
	return n;
}
