// SPDX-License-Identifier: MIT
/*
 * The usbredir transport: a handheld docked on another machine, exported
 * there by a usbredir server (Debian's usbredirect: `usbredirect --device
 * VID:PID --as HOST:PORT`).  pilotd is the usb-guest side of the usbredir
 * protocol, as QEMU's usb-redir device is (hw/usb/redirect.c), over TCP
 * or a Unix socket, with libusbredirparser.
 *
 * The device is driven as link_libusb.c drives a local one: the set-up
 * of core/setup.h as control packets (and, for a Treo 90, interrupt
 * receiving on one endpoint until its first packet or
 * PALM_INTERRUPT_WAIT_MS), then the pump (core/pump.h), whose
 * I/O calls become bulk and control packets here (usbredirhost turns a
 * CLEAR_FEATURE(ENDPOINT_HALT) into libusb_clear_halt(), which also
 * resets the host side of the endpoint).  Everything the server
 * sends is untrusted: the parser checks packet framing, and each reply is
 * checked against what was asked before its bytes are used; a server
 * that breaks the protocol is dropped and called again later.
 *
 * The connection is the handheld's cable: losing it, or the server's
 * device_disconnect, is a departure for the open files.  pilotd then
 * closes the connection and calls again (redir_conn.c: the socket, the
 * addresses, the pauses, the bounds on reading and writing): usbredirect
 * serves one device for one client and exits when either goes, so on the
 * cradle's machine it runs in a loop (README), and the next HotSync's
 * handheld is served by a new one.
 *
 * Teardown: parser callbacks and the port's hooks only queue packets or
 * note that the connection must go (redir_conn_drop()); the connection
 * ends at the top of the loop, after usbredirparser_do_read() returned,
 * and calls lost() here first, which hangs the port up.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <usbredirparser.h>

#include "core/log.h"
#include "core/palm.h"
#include "core/pump.h"
#include "core/setup.h"
#include "link.h"
#include "redir_conn.h"
#include "redir_parser.h"

#define OUT_PACKET_MAX	  (64u * 1024)
#define OUT_PACKET_MAX_16 65535u /* a server without 32-bit bulk lengths */
#define SETUP_TIMEOUT_MS  10000	 /* from device_connect to the stream */
#define CTRL_TIMEOUT_MS	  10000	 /* a control request while bytes flow */
/*
 * A server that stops reading is not seen by the socket (its kernel
 * still takes and acknowledges pilotd's few packets) nor by the write
 * queue bound.  So when an OUT packet has waited this long with nothing
 * at all from the server, a GET_STATUS goes to the device: a server that
 * reads answers it whatever the bulk endpoints do, one that does not is
 * hung up on at CTRL_TIMEOUT_MS.
 */
#define PROBE_AFTER_MS 10000

enum dev_state {
	DEV_NONE,
	DEV_SETUP, /* control requests of core/setup.h */
	DEV_RUNNING,
};

enum ctrl_purpose { CTRL_SETUP, CTRL_PUMP, CTRL_PROBE };

struct redir_link {
	struct link base;
	struct link_match match;
	struct loop *loop;
	struct port *port;

	struct redir_conn conn;
	uint64_t deadline_ms; /* of the set-up or a control request */

	enum dev_state dev;
	bool refused; /* a device was announced that pilotd does not take */
	char name[128];
	struct palm_endpoints eps; /* from ep_info; zero until it comes */
	struct palm_setup setup;
	struct palm_hotsync hs;
	uint32_t next_id;

	bool ctrl_busy;
	uint32_t ctrl_id;
	enum ctrl_purpose ctrl_purpose;
	uint16_t ctrl_len;

	uint8_t int_ep;		  /* interrupt receiving for the set-up, or 0 */
	uint16_t int_len;	  /* the bytes it asked for */
	uint64_t int_deadline_ms; /* it ends then with PALM_ANSWER_TIMEOUT */

	uint32_t in_id[PUMP_IN_MAX];
	uint32_t out_id;
	uint64_t out_sent_ms; /* when the OUT packet in flight was queued */
	uint8_t *out_buf;
	struct pump pump;
};

/* ---- the device on the connection ---- */

static uint32_t new_id(struct redir_link *l)
{
	return ++l->next_id;
}

/*
 * The server forgets a departed device's transfers; so do we.  Only from
 * the connection's lost(), never inside a callback: it hangs the port up.
 */
static void forget_device(struct redir_link *l, const char *why)
{
	if (l->dev == DEV_NONE)
		return;
	log_info("%s: %s (%llu bytes in, %llu out)", l->name, why, l->pump.rx_bytes,
		 l->pump.tx_bytes);
	pump_stop(&l->pump); /* before the hooks below */
	if (l->dev == DEV_RUNNING)
		port_carrier_down(l->port); /* also discards what it did not take */
	l->dev = DEV_NONE;
	l->deadline_ms = 0; /* of its set-up */
	l->ctrl_busy = false;
	l->int_ep = 0;
	l->int_deadline_ms = 0;
}

static void send_ctrl(struct redir_link *l, enum ctrl_purpose purpose, const struct palm_ctrl *req)
{
	struct usb_redir_control_packet_header h = {
		.endpoint = 0x80,
		.request = req->request,
		.requesttype = req->reqtype,
		.value = req->value,
		.index = req->index,
		.length = req->length,
	};

	if (!(req->reqtype & 0x80))
		h.endpoint = 0x00;
	l->ctrl_id = new_id(l);
	l->ctrl_purpose = purpose;
	l->ctrl_len = req->length;
	l->ctrl_busy = true;
	if (l->dev == DEV_RUNNING) /* the set-up has a deadline of its own */
		l->deadline_ms = loop_now_ms() + CTRL_TIMEOUT_MS;
	usbredirparser_send_control_packet(l->conn.parser, l->ctrl_id, &h, NULL, 0);
	redir_conn_queued(&l->conn);
}

static void start_stream(struct redir_link *l);

/* A set-up request: a control packet, or interrupt receiving on the
 * endpoint the Treo 90 reports its connection information on. */
static void send_setup(struct redir_link *l, const struct palm_ctrl *req)
{
	struct usb_redir_start_interrupt_receiving_header h = { .endpoint = req->interrupt_in };

	if (!req->interrupt_in) {
		send_ctrl(l, CTRL_SETUP, req);
		return;
	}
	l->int_ep = req->interrupt_in;
	l->int_len = req->length;
	l->int_deadline_ms = loop_now_ms() + PALM_INTERRUPT_WAIT_MS;
	usbredirparser_send_start_interrupt_receiving(l->conn.parser, new_id(l), &h);
	redir_conn_queued(&l->conn);
}

/* The interrupt read of the set-up ends: receiving stops (later packets
 * are not asked for, and freed), the answer goes to the set-up. */
static void interrupt_answer(struct redir_link *l, enum palm_answer a, const uint8_t *data,
			     size_t len)
{
	struct usb_redir_stop_interrupt_receiving_header h = { .endpoint = l->int_ep };
	struct palm_ctrl next;

	l->int_ep = 0;
	l->int_deadline_ms = 0;
	usbredirparser_send_stop_interrupt_receiving(l->conn.parser, new_id(l), &h);
	redir_conn_queued(&l->conn);
	if (palm_setup_answer(&l->setup, a, data, len, &next))
		start_stream(l);
	else
		send_setup(l, &next);
}

/* ---- the pump's I/O (core/pump.h): packets queued, sent at settle() ---- */

static bool can_send(const struct redir_link *l)
{
	return l->dev == DEV_RUNNING && l->conn.parser && !l->conn.drop;
}

static int io_submit_in(void *ctx, int slot, uint8_t *buf, size_t len)
{
	struct redir_link *l = ctx;
	struct usb_redir_bulk_packet_header h = { .endpoint = l->hs.in_ep,
						  .length = (uint16_t)len };

	if (!can_send(l))
		return -EAGAIN; /* the connection is going */
	l->in_id[slot] = new_id(l);
	usbredirparser_send_bulk_packet(l->conn.parser, l->in_id[slot], &h, NULL, 0);
	redir_conn_queued(&l->conn);
	return 0;
}

static int io_submit_out(void *ctx, const uint8_t *buf, size_t len)
{
	struct redir_link *l = ctx;
	struct usb_redir_bulk_packet_header h = {
		.endpoint = l->hs.out_ep,
		.length = (uint16_t)(len & 0xffff),
		.length_high = (uint16_t)(len >> 16),
	};

	if (!can_send(l))
		return -EAGAIN;
	l->out_id = new_id(l);
	l->out_sent_ms = loop_now_ms();
	usbredirparser_send_bulk_packet(l->conn.parser, l->out_id, &h, (uint8_t *)buf, (int)len);
	redir_conn_queued(&l->conn);
	return 0;
}

static void cancel(struct redir_link *l, uint32_t id)
{
	if (can_send(l)) {
		usbredirparser_send_cancel_data_packet(l->conn.parser, id);
		redir_conn_queued(&l->conn);
	}
}

static void io_cancel_in(void *ctx, int slot)
{
	struct redir_link *l = ctx;

	cancel(l, l->in_id[slot]);
}

static void io_cancel_out(void *ctx)
{
	struct redir_link *l = ctx;

	cancel(l, l->out_id);
}

static int io_ctrl(struct redir_link *l, enum ctrl_purpose purpose, const struct palm_ctrl *req)
{
	if (!can_send(l) || l->ctrl_busy)
		return -EAGAIN; /* going, or a probe is out */
	send_ctrl(l, purpose, req);
	return 0;
}

static int io_clear_halt(void *ctx, bool in)
{
	struct redir_link *l = ctx;
	const struct palm_ctrl req = pump_clear_halt_request(in ? l->hs.in_ep : l->hs.out_ep);

	return io_ctrl(l, CTRL_PUMP, &req);
}

static int io_close_notification(void *ctx)
{
	return io_ctrl(ctx, CTRL_PUMP, &palm_close_notification);
}

static const struct pump_io pump_io = {
	.submit_in = io_submit_in,
	.submit_out = io_submit_out,
	.cancel_in = io_cancel_in,
	.cancel_out = io_cancel_out,
	.clear_halt = io_clear_halt,
	.close_notification = io_close_notification,
};

/* Without 32-bit bulk lengths the parser refuses a packet of 65536. */
static size_t out_packet_max(struct redir_link *l)
{
	return usbredirparser_peer_has_cap(l->conn.parser, usb_redir_cap_32bits_bulk_length)
		       ? OUT_PACKET_MAX
		       : OUT_PACKET_MAX_16;
}

/* Inside a parser callback (or at device_connect, for a handheld asked
 * nothing): the carrier goes up at the pump's next drive. */
static void start_stream(struct redir_link *l)
{
	l->dev = DEV_RUNNING;
	l->deadline_ms = 0;
	l->hs = l->setup.hs;
	redir_conn_useful(&l->conn);
	pump_start(&l->pump, l->name, &l->hs, palm_setup_in_size(&l->setup, PUMP_IN_SIZE_MAX),
		   out_packet_max(l));
	/* core/setup.c logged the endpoints and why */
}

static enum palm_answer answer_of(uint8_t status)
{
	switch (status) {
	case usb_redir_success: return PALM_ANSWER_OK;
	case usb_redir_stall: return PALM_ANSWER_STALL;
	case usb_redir_timeout: return PALM_ANSWER_TIMEOUT;
	default: return PALM_ANSWER_FAILED;
	}
}

static enum pump_status status_of(uint8_t status)
{
	switch (status) {
	case usb_redir_success: return PUMP_OK;
	case usb_redir_cancelled: return PUMP_CANCELLED;
	case usb_redir_timeout: return PUMP_TIMEOUT;
	case usb_redir_stall: return PUMP_STALL;
	case usb_redir_babble: return PUMP_BABBLE;
	default: return PUMP_ERROR;
	}
}

/* When to probe the server (PROBE_AFTER_MS), or 0. */
static uint64_t probe_at(const struct redir_link *l)
{
	uint64_t since = l->out_sent_ms > l->conn.last_rx_ms ? l->out_sent_ms : l->conn.last_rx_ms;

	if (!can_send(l) || l->ctrl_busy || !l->pump.out_busy || l->pump.out_done)
		return 0;
	return since + PROBE_AFTER_MS;
}

static void probe(struct redir_link *l)
{
	static const struct palm_ctrl get_status = { .reqtype = 0x80,
						     .request = 0x00,
						     .length = 2 };
	uint64_t at = probe_at(l);

	if (at && loop_now_ms() >= at)
		send_ctrl(l, CTRL_PROBE, &get_status);
}

/* ---- what the server sends (parser callbacks; untrusted) ---- */

/* The parser's priv is the connection (redir_parser.h). */
static struct redir_link *link_of(void *priv)
{
	return (struct redir_link *)((char *)priv - offsetof(struct redir_link, conn));
}

static void on_ep_info(void *priv, struct usb_redir_ep_info_header *info)
{
	struct redir_link *l = link_of(priv);

	l->eps = (struct palm_endpoints){ 0 };
	for (int i = 0; i < 32; i++) {
		uint8_t addr = (uint8_t)(((i & 0x10) << 3) | (i & 0x0f));

		if (info->type[i] == usb_redir_type_bulk && info->interface[i] == 0)
			palm_endpoints_add(&l->eps, addr, info->max_packet_size[i]);
		else if (info->type[i] == usb_redir_type_interrupt && info->interface[i] == 0)
			palm_endpoints_add_interrupt(&l->eps, addr, info->max_packet_size[i]);
	}
}

static void on_device_connect(void *priv, struct usb_redir_device_connect_header *d)
{
	struct redir_link *l = link_of(priv);
	struct palm_ctrl req;

	if (l->conn.drop)
		return;
	if (l->dev != DEV_NONE || l->refused) {
		/* usbredirect never does this; a server that does is not trusted
		 * (nor would a log line per repeat be bounded) */
		redir_conn_drop(&l->conn, "a second device_connect without a disconnect");
		return;
	}
	snprintf(l->name, sizeof(l->name), "handheld %04x:%04x (usbredir %s)", d->vendor_id,
		 d->product_id, l->conn.server);
	if (!link_match_device(&l->match, d->vendor_id, d->product_id)) {
		log_warn("usbredir server %s: device %04x:%04x is not a handheld pilotd takes; "
			 "waiting for another",
			 l->conn.server, d->vendor_id, d->product_id);
		l->refused = true;
		return;
	}
	if (!l->eps.first_in || !l->eps.first_out) {
		log_err("%s: no bulk endpoints on interface 0; cannot sync with it", l->name);
		l->refused = true;
		return;
	}
	log_info("%s arrived", l->name);
	log_info("%s: usbredir does not tell whether it sits behind a hub on the server's "
		 "machine (a hub has been seen to stop HotSync)",
		 l->name);
	l->dev = DEV_SETUP;
	l->deadline_ms = loop_now_ms() + SETUP_TIMEOUT_MS;
	if (palm_setup_start(&l->setup, l->name, d->vendor_id, d->product_id, &l->eps, &req))
		start_stream(l);
	else
		send_setup(l, &req);
}

static void on_device_disconnect(void *priv)
{
	struct redir_link *l = link_of(priv);

	/* the parser acks it (usb_redir_cap_device_disconnect_ack) */
	if (l->conn.drop)
		return;
	if (l->dev != DEV_RUNNING) {
		/* no handheld set up: not a departure, so no call at once (a
		 * refused device's, or one gone in its set-up: calls back off) */
		const char *why = "a device_disconnect with no device";

		if (l->dev == DEV_SETUP)
			why = "the handheld left in its set-up";
		else if (l->refused)
			why = "the device it refused left";
		redir_conn_drop(&l->conn, why);
		return;
	}
	/* usbredirect serves no other device on this connection: the next
	 * (a handheld, perhaps) comes on the next call */
	redir_conn_departed(&l->conn);
}

static void on_control_packet(void *priv, uint64_t id, struct usb_redir_control_packet_header *h,
			      uint8_t *data, int data_len)
{
	struct redir_link *l = link_of(priv);
	size_t len = data_len > 0 ? (size_t)data_len : 0;
	struct palm_ctrl next;

	if (l->conn.drop) {
		/* the connection is going: nothing more from it counts */
	} else if (!l->ctrl_busy || id != l->ctrl_id || l->dev == DEV_NONE) {
		log_debug("usbredir server %s: a control reply nobody asked for (id %llu)",
			  l->conn.server, (unsigned long long)id);
	} else if (len > l->ctrl_len) {
		redir_conn_drop(&l->conn, "a control reply longer than asked");
	} else {
		l->ctrl_busy = false;
		if (l->dev == DEV_RUNNING)
			l->deadline_ms = 0;
		if (l->ctrl_purpose == CTRL_PUMP)
			pump_ctrl_done(&l->pump, status_of(h->status));
		else if (l->ctrl_purpose == CTRL_SETUP && l->dev == DEV_SETUP) {
			if (palm_setup_answer(&l->setup, answer_of(h->status), data, len, &next))
				start_stream(l);
			else
				send_setup(l, &next);
		}
	}
	if (data)
		usbredirparser_free_packet_data(l->conn.parser, data);
}

static void in_reply(struct redir_link *l, int i, uint8_t status, const uint8_t *data, size_t len)
{
	if (len > l->pump.in_size) {
		redir_conn_drop(&l->conn, "a bulk IN reply longer than asked");
		return;
	}
	pump_in_done(&l->pump, i, status_of(status), data, len);
}

static void on_bulk_packet(void *priv, uint64_t id, struct usb_redir_bulk_packet_header *h,
			   uint8_t *data, int data_len)
{
	struct redir_link *l = link_of(priv);
	size_t len = data_len > 0 ? (size_t)data_len : 0;
	int i = 0;

	if (l->conn.drop || l->dev != DEV_RUNNING) {
		/* not for us, or the connection is going */
	} else if (h->endpoint == l->hs.in_ep) {
		while (i < PUMP_IN_MAX && !(pump_in_flying(&l->pump, i) && l->in_id[i] == id))
			i++;
		if (i < PUMP_IN_MAX)
			in_reply(l, i, h->status, data, len);
	} else if (l->pump.out_busy && id == l->out_id && h->endpoint == l->hs.out_ep) {
		pump_out_done(&l->pump, status_of(h->status),
			      ((size_t)h->length_high << 16) | h->length);
	}
	if (data)
		usbredirparser_free_packet_data(l->conn.parser, data);
}

/* The set-up's interrupt read: its first packet answers it. */
static void on_interrupt_packet(void *priv, uint64_t id,
				struct usb_redir_interrupt_packet_header *h, uint8_t *data,
				int data_len)
{
	struct redir_link *l = link_of(priv);
	size_t len = data_len > 0 ? (size_t)data_len : 0;

	if (l->conn.drop || l->dev != DEV_SETUP || !l->int_ep || h->endpoint != l->int_ep) {
		/* not asked for (a late one, after receiving stopped) */
	} else {
		/* the server reads whole packets of the endpoint (no length is
		 * asked for): what is past the set-up's read is not looked at */
		interrupt_answer(l, answer_of(h->status), data,
				 len < l->int_len ? len : l->int_len);
	}
	if (data)
		usbredirparser_free_packet_data(l->conn.parser, data);
}

/* Interrupt receiving could not start: the set-up goes on without it. */
static void on_interrupt_receiving_status(void *priv, uint64_t id,
					  struct usb_redir_interrupt_receiving_status_header *h)
{
	struct redir_link *l = link_of(priv);

	if (l->conn.drop || l->dev != DEV_SETUP || !l->int_ep || h->endpoint != l->int_ep ||
	    h->status == usb_redir_success)
		return;
	interrupt_answer(l, answer_of(h->status), NULL, 0);
}

/* ---- the connection's calls ---- */

static struct usbredirparser *new_parser(void *ctx)
{
	struct redir_link *l = ctx;
	struct usbredirparser *p = redir_parser_create(&l->conn);

	if (!p)
		return NULL;
	p->ep_info_func = on_ep_info;
	p->device_connect_func = on_device_connect;
	p->device_disconnect_func = on_device_disconnect;
	p->control_packet_func = on_control_packet;
	p->bulk_packet_func = on_bulk_packet;
	p->interrupt_packet_func = on_interrupt_packet;
	p->interrupt_receiving_status_func = on_interrupt_receiving_status;
	redir_parser_init(p);
	return p;
}

/* The connection ends: a departure, if a handheld was on it. */
static void conn_lost(void *ctx, const char *why)
{
	struct redir_link *l = ctx;

	forget_device(l, why);
	l->refused = false;
	l->eps = (struct palm_endpoints){ 0 };
}

/* After the server's packets (outside the parser): hand on what came. */
static void conn_parsed(void *ctx)
{
	struct redir_link *l = ctx;

	pump_drive(&l->pump, loop_now_ms());
}

static const struct redir_conn_ops conn_ops = {
	.new_parser = new_parser,
	.lost = conn_lost,
	.parsed = conn_parsed,
};

/* ---- the transport's ops ---- */

static int timeout_ms(struct link *base)
{
	struct redir_link *l = (struct redir_link *)base;
	int t = redir_conn_timeout_ms(&l->conn);
	uint64_t now = loop_now_ms();
	uint64_t at = l->deadline_ms;

	if (pump_pending(&l->pump))
		return 0;
	if (l->int_deadline_ms && (!at || l->int_deadline_ms < at))
		at = l->int_deadline_ms;
	if (probe_at(l) && (!at || probe_at(l) < at))
		at = probe_at(l);
	if (!at)
		return t;
	at = at <= now ? 0 : at - now;
	return t < 0 || at < (uint64_t)t ? (int)at : t;
}

static void after_events(struct link *base, bool timed_out)
{
	struct redir_link *l = (struct redir_link *)base;

	if (l->int_deadline_ms && loop_now_ms() >= l->int_deadline_ms && !l->conn.drop &&
	    l->dev == DEV_SETUP)
		interrupt_answer(l, PALM_ANSWER_TIMEOUT, NULL, 0);
	if (l->deadline_ms && loop_now_ms() >= l->deadline_ms)
		redir_conn_drop(&l->conn,
				l->dev == DEV_SETUP
					? "the handheld's set-up timed out: it enumerated "
					  "and never finished answering its set-up"
					: "a control request went unanswered");
	if (pump_verdict(&l->pump) != PUMP_FINE)
		redir_conn_drop(&l->conn, l->pump.why);
	if (l->conn.state == REDIR_UP && !l->conn.drop) {
		pump_drive(&l->pump, loop_now_ms());
		probe(l);
	}
	redir_conn_after_events(&l->conn);
}

static bool all_sent(void *ctx)
{
	struct redir_link *l = ctx;

	return l->dev != DEV_RUNNING || !port_tx_queued(l->port);
}

static void stop(struct link *base)
{
	struct redir_link *l = (struct redir_link *)base;

	/* Give queued bytes time to reach the handheld. */
	redir_conn_drain(&l->conn, PUMP_STOP_DRAIN_MS, all_sent);
	pump_stop(&l->pump); /* its cancels go out with the rest */
	redir_conn_close(&l->conn, "released: pilotd is stopping");
	free(l->out_buf);
	free(l);
}

static const struct link_ops usbredir_ops = {
	.timeout_ms = timeout_ms,
	.after_events = after_events,
	.stop = stop,
};

int link_usbredir_start(struct link **out, const struct link_match *m, const char *server,
			struct loop *loop, struct port *port)
{
	struct redir_link *l = calloc(1, sizeof(*l));
	int r;

	*out = l ? &l->base : NULL;
	if (!l)
		return -ENOMEM;
	l->base.ops = &usbredir_ops;
	l->base.pump = &l->pump;
	l->match = *m;
	l->loop = loop;
	l->port = port;
	l->conn.sock.fd = -1;
	l->out_buf = malloc(OUT_PACKET_MAX);
	if (!l->out_buf)
		return -ENOMEM;
	pump_init(&l->pump, &pump_io, l, port, l->out_buf, OUT_PACKET_MAX);
	r = redir_conn_init(&l->conn, server, loop, &conn_ops, l);
	if (r < 0) {
		if (r != -EHOSTUNREACH)
			log_err("bad --usbredir '%s': expected HOST:PORT, [IPv6]:PORT or a socket "
				"path",
				server);
		return r;
	}
	log_info("handhelds from usbredir server %s", server);
	redir_conn_call(&l->conn);
	return 0;
}
