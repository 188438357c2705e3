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
	.rx_inflight_max = PUMP_IN_WINDOW,
};

struct ph_answer *ph_ans(struct ph *h, void *req)
{
	return &h->ans[ph_index(h, req)];
}

/* An answer to something never asked would be recorded nowhere: abort. */
static struct ph_answer *answer(struct ph *h, void *req, enum ph_kind kind)
{
	int i = ph_index(h, req);
	struct ph_answer *a;

	if (i < 0 || i >= h->nreq) {
		fprintf(stderr, "port harness: an answer to request %d, of %d made\n", i, h->nreq);
		abort();
	}
	a = &h->ans[i];
	a->count++;
	a->kind = kind;
	a->seq = ++h->seq;
	return a;
}

static int answered(struct ph *h, void *req, const struct ph_answer *a)
{
	return h->on_answer ? h->on_answer(h, req, a) : 0;
}

static void keep(struct ph_answer *a, const void *buf, size_t len)
{
	a->len = len;
	if (buf && len) /* end of file comes as NULL, 0 */
		memcpy(a->data, buf, len < PH_DATA_MAX ? len : PH_DATA_MAX);
}

static int h_open(void *ctx, void *req, uint64_t fh)
{
	struct ph *h = ctx;
	struct ph_answer *a = answer(h, req, PH_OPEN);
	int r;

	a->fh = fh;
	r = answered(h, req, a);
	return h->opener_gone ? -ENOENT : r;
}

static void h_data(void *ctx, void *req, const void *buf, size_t len)
{
	struct ph_answer *a = answer(ctx, req, PH_DATA);

	keep(a, buf, len);
	answered(ctx, req, a);
}

static void h_written(void *ctx, void *req, size_t len)
{
	struct ph_answer *a = answer(ctx, req, PH_WRITTEN);

	a->len = len;
	answered(ctx, req, a);
}

static void h_ioctl(void *ctx, void *req, const void *out, size_t len)
{
	struct ph_answer *a = answer(ctx, req, PH_IOCTL);

	keep(a, out, len);
	answered(ctx, req, a);
}

static void h_fetch(void *ctx, void *req, uintptr_t arg, size_t in, size_t out)
{
	(void)arg, (void)in, (void)out;
	answered(ctx, req, answer(ctx, req, PH_FETCH));
}

static void h_err(void *ctx, void *req, int err)
{
	struct ph_answer *a = answer(ctx, req, PH_ERR);

	a->err = err;
	answered(ctx, req, a);
}

static void h_parked(void *ctx, void *req)
{
	(void)req;
	((struct ph *)ctx)->parked++;
}

/* As asked: a capable or incapable caller, or the file's opener itself. */
static bool h_caller_admin(void *ctx, void *req, uint64_t fh)
{
	struct ph *h = ctx;

	(void)req;
	h->admin_asked++;
	if (h->caller != PH_CALLER_OPENER)
		return h->caller == PH_CALLER_CAPABLE;
	for (const struct port_file *f = h->port->files; f; f = f->next)
		if (f->fh == fh)
			return f->admin;
	return false;
}

static void h_notify(void *ctx, void *handle)
{
	struct ph *h = ctx;

	h->notified++;
	if (h->on_notify)
		h->on_notify(handle);
}

static int h_push(void *ctx, uint64_t key, unsigned int events, unsigned int wake)
{
	struct ph *h = ctx;

	h->pushes++;
	if (h->push_refused)
		return -EOPNOTSUPP;
	h->push_key = key;
	h->push_events = events;
	h->push_wake = wake;
	h->push_seq = ++h->seq;
	if (h->on_push)
		h->on_push(h, key, events, wake);
	return 0;
}

static int h_push_input(void *ctx, uint64_t key, const void *buf, size_t len)
{
	struct ph *h = ctx;
	size_t room = h->kbuf_room ? h->kbuf_room : PORT_PUSH_INPUT_MAX;

	h->input_push_calls++;
	if (h->input_push_err)
		return h->input_push_err;
	/* the kernel's checks: a size of 1 to its bound, whole or not at all */
	if (len == 0 || len > PORT_PUSH_INPUT_MAX)
		return -EINVAL;
	if (len > room - h->kbuf_len)
		return -ENOSPC;
	memcpy(h->kbuf + h->kbuf_len, buf, len);
	h->kbuf_len += len;
	h->input_key = key;
	return 0;
}

size_t ph_kernel_read(struct ph *h, void *buf, size_t max)
{
	size_t n = h->kbuf_len < max ? h->kbuf_len : max;

	memcpy(buf, h->kbuf, n);
	memmove(h->kbuf, h->kbuf + n, h->kbuf_len - n);
	h->kbuf_len -= n;
	return n;
}

static int h_take_back_input(void *ctx, uint64_t key)
{
	struct ph *h = ctx;

	h->take_back_calls++;
	if (h->take_back_err)
		return h->take_back_err;
	if (h->take_back_out)
		return -EBUSY; /* one per file at a time */
	h->take_back_out = true;
	h->take_back_key = key;
	return 0;
}

void ph_kernel_gives_back(struct ph *h)
{
	uint8_t buf[PORT_PUSH_INPUT_MAX];
	size_t len = h->kbuf_len;

	memcpy(buf, h->kbuf, len);
	h->kbuf_len = 0;
	h->take_back_out = false;
	port_input_returned(h->port, h->take_back_key, buf, len);
}

static void h_drop(void *ctx, void *handle)
{
	(void)handle;
	((struct ph *)ctx)->dropped_handles++;
}

/* ---- the transport's hooks ---- */

static void hook_enter(struct ph *h)
{
	if (++h->depth > h->max_depth)
		h->max_depth = h->depth;
	h->hooks_in_completion += h->in_completion;
}

/* The pump's part, as main.c's hooks call it through link.h; then the test's. */
static void hook_run(struct ph *h, enum ph_hook hook)
{
	uint64_t now = h->clock ? h->clock() : h->now;

	if (h->pump) {
		switch (hook) {
		case PH_TX_READY:
		case PH_RX_ROOM: pump_drive(h->pump, now); break;
		case PH_TX_ABORT: pump_abort_tx(h->pump, now); break;
		case PH_RX_STOP: pump_rx_stop(h->pump, now); break;
		case PH_LAST_CLOSE: pump_last_close(h->pump, now); break;
		}
	}
	if (h->on_hook)
		h->on_hook(h, hook);
	h->depth--;
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
	hook_run(h, PH_TX_READY);
}

/* A hook that only counts, then runs the pump's part and the test's. */
static void hook_counted(struct ph *h, int *count, enum ph_hook hook)
{
	hook_enter(h);
	(*count)++;
	hook_run(h, hook);
}

static void h_tx_abort(void *ctx)
{
	struct ph *h = ctx;

	hook_counted(h, &h->tx_abort, PH_TX_ABORT);
}

static void h_rx_room(void *ctx)
{
	struct ph *h = ctx;

	hook_enter(h);
	h->rx_room++;
	if (h->depart_in_rx_room && h->port->carrier)
		port_carrier_down(h->port);
	hook_run(h, PH_RX_ROOM);
}

static void h_rx_stop(void *ctx)
{
	struct ph *h = ctx;

	hook_counted(h, &h->rx_stop, PH_RX_STOP);
}

static void h_last_close(void *ctx)
{
	struct ph *h = ctx;

	hook_counted(h, &h->last_close, PH_LAST_CLOSE);
}

/*
 * The answers' bytes (megabytes, most never touched) outlive a harness
 * for the next one: a fuzzer makes a harness an input, and a fresh
 * mapping each time, its pages and its sanitizer shadow faulted in anew,
 * cost fuzz_port two thirds of its speed.  One spare is kept; not zeroed
 * (an answer's bytes are read up to its len only).
 */
static uint8_t *kept_spare;
static size_t kept_spare_size;

static uint8_t *kept_get(size_t size)
{
	uint8_t *k = kept_spare;

	if (!k || kept_spare_size < size)
		return malloc(size);
	kept_spare = NULL;
	return k;
}

/* The larger of the two stays. */
static void kept_put(uint8_t *k, size_t size)
{
	if (kept_spare && kept_spare_size >= size) {
		free(k);
		return;
	}
	free(kept_spare);
	kept_spare = k;
	kept_spare_size = size;
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
		.caller_admin = h_caller_admin,
		.notify_poll = h_notify,
		.drop_poll_handle = h_drop,
		.push_events = h_push,
		.push_input = h_push_input,
		.take_back_input = h_take_back_input,
		.tx_ready = h_tx_ready,
		.tx_abort = h_tx_abort,
		.rx_room = h_rx_room,
		.rx_stop = h_rx_stop,
		.last_close = h_last_close,
	};

	*h = (struct ph){ .port = p, .max_req = max_req, .handheld_size = 1u << 16 };
	h->ans = calloc((size_t)max_req, sizeof(*h->ans));
	h->kept = kept_get((size_t)max_req * PH_DATA_MAX);
	h->reqs = calloc((size_t)max_req, 1);
	h->handheld = malloc(h->handheld_size);
	if (!h->ans || !h->kept || !h->reqs || !h->handheld) {
		ph_free(h);
		return -ENOMEM;
	}
	for (int i = 0; i < max_req; i++)
		h->ans[i].data = h->kept + (size_t)i * PH_DATA_MAX;
	if (port_init(p, cfg, &hooks) < 0) {
		h->port = NULL; /* nothing of it to shut down */
		ph_free(h);
		return -ENOMEM;
	}
	return 0;
}

int ph_close_all(struct ph *h)
{
	port_shutdown(h->port);
	while (h->port->files)
		port_release(h->port, h->port->files->fh);
	port_shutdown(h->port);
	return ph_unanswered_or_twice(h);
}

void ph_free(struct ph *h)
{
	if (h->port && h->ans) {
		ph_close_all(h);
		port_free(h->port);
	}
	free(h->ans);
	if (h->kept)
		kept_put(h->kept, (size_t)h->max_req * PH_DATA_MAX);
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
	struct port_open_args a = { .uid = uid,
				    .admin = uid == 0,
				    .nonblock = nonblock,
				    .input_key = h->open_input_key,
				    .input_keyed = h->open_input_key != 0 };
	void *req = ph_req(h);
	struct ph_answer *an = ph_ans(h, req);

	port_open(h->port, req, &a);
	if (an->count != 1 || an->kind != PH_OPEN)
		return 0;
	if (listen)
		port_poll(h->port, an->fh, NULL, 0);
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

	return ph_handheld_takes_into(h, buf, max < sizeof(buf) ? max : sizeof(buf));
}

size_t ph_handheld_takes_into(struct ph *h, void *buf, size_t size)
{
	size_t n = port_tx_take(h->port, buf, size);
	size_t keep = n;

	if (keep > h->handheld_size - h->handheld_len)
		keep = h->handheld_size - h->handheld_len;
	memcpy(h->handheld + h->handheld_len, buf, keep);
	h->handheld_len += keep;
	h->handheld_lost += n - keep;
	port_tx_done(h->port, n);
	return n;
}
