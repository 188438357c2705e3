// SPDX-License-Identifier: MIT
/*
 * The usbredir transport: a handheld docked on another machine, exported
 * there by a usbredir server (Debian's usbredirect: `usbredirect --device
 * VID:PID --as HOST:PORT`).  pilotd is the usb-guest side of the usbredir
 * protocol, as QEMU's usb-redir device is (hw/usb/redirect.c), over TCP
 * or a Unix socket, with libusbredirparser.
 *
 * The device is driven as link_libusb.c drives a local one: the set-up
 * of core/setup.h as control packets, one-packet bulk IN requests while
 * the port has room, one bulk OUT packet at a time from txq, and a
 * CLEAR_FEATURE(ENDPOINT_HALT) after a stall.  Everything the server
 * sends is untrusted: the parser checks packet framing, and each reply is
 * checked against what was asked before its bytes are used; a server
 * that breaks the protocol is dropped and called again later.
 *
 * The connection is the handheld's cable: losing it, or the server's
 * device_disconnect, is a departure for the open files.  pilotd then
 * closes the connection and calls again with a growing delay (0.1 s
 * doubling to 2 s): usbredirect serves one device for one client and
 * exits when either goes, so on the cradle's machine it runs in a loop
 * (README), and the next HotSync's handheld is served by a new one.
 * Names are resolved once, at start, and every address is tried in
 * turn; no call here blocks.
 *
 * Teardown: parser callbacks and the port's hooks only note that the
 * connection must go (drop_connection()); settle() closes it, hangs the
 * port up and destroys the parser at the top of the loop, after
 * usbredirparser_do_read() has returned.  Bounds per loop round: at most
 * READ_BUDGET bytes are parsed, written out in READ_CHUNK steps; the
 * queue towards the server holds at most WRITE_QUEUE_MAX bytes, or the
 * server, which does not read, is dropped.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <usbredirparser.h>

#include "core/log.h"
#include "core/palm.h"
#include "core/pump.h"
#include "core/setup.h"
#include "link.h"

#define IN_BUFFER_MAX	   1024u /* the largest wMaxPacketSize of a bulk endpoint */
#define OUT_PACKET_MAX	   (64u * 1024)
#define OUT_PACKET_MAX_16  65535u /* a server without 32-bit bulk lengths */
#define BACKOFF_FIRST_MS   100
#define BACKOFF_MAX_MS	   2000
#define CONNECT_TIMEOUT_MS 5000	 /* TCP connect, then the server's hello */
#define SETUP_TIMEOUT_MS   10000 /* from device_connect to the stream */
#define CTRL_TIMEOUT_MS	   10000 /* a control request while bytes flow */
#define ADDRS_MAX	   8	 /* resolved addresses tried in turn */
#define READ_CHUNK	   4096u /* parsed, then its answers written out */
#define READ_BUDGET	   (64u * 1024) /* parsed per loop round at most */
/* Our own packets never queue more than one OUT packet and small requests. */
#define WRITE_QUEUE_MAX (OUT_PACKET_MAX + 64u * 1024)
/*
 * A server that falls silent (its machine lost power: no FIN, no RST) is
 * a departure after KEEPALIVE_IDLE_S + KEEPALIVE_COUNT x
 * KEEPALIVE_INTERVAL_S = 25 s with nothing unacknowledged, or
 * USER_TIMEOUT_MS with data unacknowledged (tcp(7)).
 */
#define KEEPALIVE_IDLE_S     10
#define KEEPALIVE_INTERVAL_S 5
#define KEEPALIVE_COUNT	     3
#define USER_TIMEOUT_MS	     25000

enum conn_state {
	CONN_WAITING,	 /* until retry_at_ms */
	CONN_CONNECTING, /* a non-blocking connect in progress */
	CONN_HELLO,	 /* connected; the server has not said hello */
	CONN_UP,
};

enum dev_state {
	DEV_NONE,
	DEV_SETUP, /* control requests of core/setup.h */
	DEV_RUNNING,
};

enum ctrl_purpose { CTRL_SETUP, CTRL_CLOSE_NOTIFICATION, CTRL_CLEAR_HALT };

struct redir_link {
	struct link base;
	struct link_match match;
	struct loop *loop;
	struct port *port;

	const char *server; /* as given, for the log */
	struct sockaddr_storage addrs[ADDRS_MAX];
	socklen_t addrlens[ADDRS_MAX];
	unsigned int naddrs, addr_next; /* the one to call next */
	unsigned int addr_first;	/* where this round of calls began */
	struct sockaddr_storage *addr;	/* the one called */

	enum conn_state conn;
	struct watch sock;
	uint32_t sock_events;
	struct usbredirparser *parser;
	uint64_t deadline_ms; /* of connecting, hello, set-up or a control request */
	uint64_t retry_at_ms;
	unsigned int backoff_ms;
	unsigned int failures; /* connection attempts failed in a row */
	const char *drop;      /* noted inside callbacks: settle() drops it */
	char drop_buf[96];
	bool departed;	       /* device_disconnect came */
	size_t read_budget;    /* bytes on_read may still hand the parser */
	bool queued;	       /* packets queued since settle() last wrote */

	enum dev_state dev;
	char name[128];
	struct palm_endpoints eps; /* from ep_info; zero until it comes */
	struct palm_setup setup;
	struct palm_hotsync hs;
	uint32_t next_id;

	bool ctrl_busy;
	uint32_t ctrl_id;
	enum ctrl_purpose ctrl_purpose;
	uint16_t ctrl_len;
	uint8_t halt_ep; /* of the CLEAR_FEATURE in flight */

	uint32_t in_id[PUMP_IN_MAX];
	uint32_t out_id;
	uint8_t *out_buf;
	struct pump pump;
};

static void settle(struct redir_link *l);

/* ---- where the server is ---- */

static int parse_server(struct redir_link *l, const char *s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char host[256];
	const char *host_start = s, *end, *port;
	size_t hostlen;
	int r;

	if (strchr(s, '/')) { /* a Unix socket */
		struct sockaddr_un *un = (struct sockaddr_un *)&l->addrs[0];

		if (strlen(s) >= sizeof(un->sun_path))
			return -ENAMETOOLONG;
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, s);
		l->addrlens[0] = sizeof(*un);
		l->naddrs = 1;
		return 0;
	}
	if (s[0] == '[') { /* [IPv6]:PORT */
		host_start = s + 1;
		end = strchr(s, ']');
		if (!end || end[1] != ':')
			return -EINVAL;
		port = end + 2;
	} else { /* HOST:PORT, one colon */
		end = strrchr(s, ':');
		if (!end || strchr(s, ':') != end)
			return -EINVAL;
		port = end + 1;
	}
	hostlen = (size_t)(end - host_start);
	if (hostlen == 0 || hostlen >= sizeof(host) || !*port ||
	    strspn(port, "0123456789") != strlen(port) || atol(port) < 1 || atol(port) > 65535)
		return -EINVAL;
	memcpy(host, host_start, hostlen);
	host[hostlen] = '\0';
	r = getaddrinfo(host, port, &hints, &res);
	if (r != 0) {
		log_err("usbredir server %s: %s", s, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	/* "localhost" is ::1 and 127.0.0.1: the server may listen on either */
	for (struct addrinfo *ai = res; ai && l->naddrs < ADDRS_MAX; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(l->addrs[0]))
			continue;
		memcpy(&l->addrs[l->naddrs], ai->ai_addr, ai->ai_addrlen);
		l->addrlens[l->naddrs++] = ai->ai_addrlen;
	}
	freeaddrinfo(res);
	return l->naddrs ? 0 : -EHOSTUNREACH;
}

/* ---- the device on the connection ---- */

static uint32_t new_id(struct redir_link *l)
{
	return ++l->next_id;
}

/*
 * The server forgets a departed device's transfers; so do we.  Only from
 * settle() and stop(), never inside a callback: it hangs the port up.
 */
static void forget_device(struct redir_link *l, const char *why)
{
	if (l->dev == DEV_NONE)
		return;
	log_info("%s: %s (%llu bytes in, %llu out)", l->name, why, l->pump.rx_bytes,
		 l->pump.tx_bytes);
	if (l->dev == DEV_RUNNING)
		port_carrier_down(l->port); /* also discards what it did not take */
	l->dev = DEV_NONE;
	l->deadline_ms = 0; /* of its set-up */
	l->ctrl_busy = false;
	l->pump = (struct pump){ 0 };
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
	usbredirparser_send_control_packet(l->parser, l->ctrl_id, &h, NULL, 0);
	l->queued = true;
}

/* Queue IN requests as the pump allows; the packets leave in settle(). */
static void submit_in(struct redir_link *l)
{
	struct usb_redir_bulk_packet_header h = {
		.endpoint = l->hs.in_ep,
		.length = (uint16_t)l->pump.in_size,
	};
	int i;

	if (l->dev != DEV_RUNNING || l->drop)
		return;
	while ((i = pump_in_next(&l->pump)) >= 0) {
		l->in_id[i] = new_id(l);
		pump_in_submitted(&l->pump, i);
		usbredirparser_send_bulk_packet(l->parser, l->in_id[i], &h, NULL, 0);
		l->queued = true;
	}
}

static void kick_tx(struct redir_link *l)
{
	struct usb_redir_bulk_packet_header h = { .endpoint = l->hs.out_ep };
	size_t n;

	if (l->dev != DEV_RUNNING || l->drop)
		return;
	n = pump_out_take(&l->pump, l->out_buf);
	if (n == 0)
		return;
	h.length = (uint16_t)(n & 0xffff);
	h.length_high = (uint16_t)(n >> 16);
	l->out_id = new_id(l);
	usbredirparser_send_bulk_packet(l->parser, l->out_id, &h, l->out_buf, (int)n);
	l->queued = true;
}

/* Without 32-bit bulk lengths the parser refuses a packet of 65536. */
static size_t out_packet_max(struct redir_link *l)
{
	return usbredirparser_peer_has_cap(l->parser, usb_redir_cap_32bits_bulk_length)
		       ? OUT_PACKET_MAX
		       : OUT_PACKET_MAX_16;
}

static void start_stream(struct redir_link *l)
{
	l->dev = DEV_RUNNING;
	l->deadline_ms = 0;
	l->hs = l->setup.hs;
	pump_start(&l->pump, l->port, l->name, palm_setup_in_size(&l->setup, IN_BUFFER_MAX),
		   out_packet_max(l));
	log_info("%s: HotSync on bulk IN 0x%02x, OUT 0x%02x", l->name, l->hs.in_ep, l->hs.out_ep);
	port_carrier_up(l->port);
	submit_in(l);
	kick_tx(l);
}

/* Note that the connection must go; settle() does it, after the events. */
static void drop_connection(struct redir_link *l, const char *why)
{
	if (!l->drop) {
		snprintf(l->drop_buf, sizeof(l->drop_buf), "%s", why);
		l->drop = l->drop_buf;
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

/* A halted direction whose transfers are all back: CLEAR_FEATURE(HALT). */
static void recover(struct redir_link *l)
{
	struct palm_ctrl req = { .reqtype = 0x02, .request = 0x01 };
	enum pump_clear which;

	if (l->dev != DEV_RUNNING || l->ctrl_busy || l->drop)
		return;
	which = pump_recover(&l->pump);
	if (which == PUMP_CLEAR_NONE)
		return;
	req.index = which == PUMP_CLEAR_IN ? l->hs.in_ep : l->hs.out_ep;
	l->halt_ep = (uint8_t)req.index;
	send_ctrl(l, CTRL_CLEAR_HALT, &req);
}

static void halt_cleared(struct redir_link *l, bool ok)
{
	pump_halt_cleared(&l->pump, l->halt_ep & 0x80 ? PUMP_CLEAR_IN : PUMP_CLEAR_OUT, ok);
	submit_in(l);
	kick_tx(l);
}

/* ---- what the server sends (parser callbacks; untrusted) ---- */

static void on_log(void *priv, int level, const char *msg)
{
	struct redir_link *l = priv;

	if (level <= usbredirparser_warning)
		log_warn("usbredir server %s: %s", l->server, msg);
	else if (level <= usbredirparser_info)
		log_debug("usbredir server %s: %s", l->server, msg);
}

static int on_read(void *priv, uint8_t *data, int count)
{
	struct redir_link *l = priv;
	size_t want = (size_t)count < l->read_budget ? (size_t)count : l->read_budget;
	ssize_t n;
	int one = 1;

	if (want == 0 || l->drop)
		return 0; /* this round's share is parsed, or we are leaving */
	n = recv(l->sock.fd, data, want, MSG_DONTWAIT);
	if (n > 0) {
		l->read_budget -= (size_t)n;
		/*
		 * Acknowledge at once: usbredirect leaves Nagle on, so each
		 * small reply of its waits for our ACK of the one before,
		 * which delayed ACKs hold back for up to 40 ms (tcp(7)).
		 * TCP_QUICKACK does not stick, so it is set after every read.
		 */
		if (l->addr->ss_family != AF_UNIX)
			setsockopt(l->sock.fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
		return (int)n;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	drop_connection(l, n == 0 ? "the server closed the connection" : strerror(errno));
	return -1;
}

static int on_write(void *priv, uint8_t *data, int count)
{
	struct redir_link *l = priv;
	ssize_t n = send(l->sock.fd, data, (size_t)count, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n >= 0)
		return (int)n;
	if (errno == EAGAIN || errno == EINTR)
		return 0;
	drop_connection(l, strerror(errno));
	return -1;
}

static void on_hello(void *priv, struct usb_redir_hello_header *hello)
{
	struct redir_link *l = priv;

	l->conn = CONN_UP;
	l->deadline_ms = 0;
	l->failures = 0;
	l->backoff_ms = BACKOFF_FIRST_MS;
	log_info("usbredir server %s: connected (%.64s)", l->server, hello->version);
}

static void on_interface_info(void *priv, struct usb_redir_interface_info_header *info)
{
	/* the endpoints' interface numbers come with ep_info */
}

static void on_ep_info(void *priv, struct usb_redir_ep_info_header *info)
{
	struct redir_link *l = priv;

	l->eps = (struct palm_endpoints){ 0 };
	for (int i = 0; i < 32; i++) {
		uint8_t addr = (uint8_t)(((i & 0x10) << 3) | (i & 0x0f));

		if (info->type[i] == usb_redir_type_bulk && info->interface[i] == 0)
			palm_endpoints_add(&l->eps, addr, info->max_packet_size[i]);
	}
}

static void on_device_connect(void *priv, struct usb_redir_device_connect_header *d)
{
	struct redir_link *l = priv;
	struct palm_ctrl req;

	if (l->drop)
		return;
	if (l->dev != DEV_NONE) {
		/* usbredirect never does this; a server that does is not trusted */
		drop_connection(l, "a second device_connect without a disconnect");
		return;
	}
	snprintf(l->name, sizeof(l->name), "handheld %04x:%04x (usbredir %s)", d->vendor_id,
		 d->product_id, l->server);
	if (!link_match_device(&l->match, d->vendor_id, d->product_id)) {
		log_warn("usbredir server %s: device %04x:%04x is not a handheld pilotd takes; "
			 "waiting for another",
			 l->server, d->vendor_id, d->product_id);
		return;
	}
	if (!l->eps.first_in || !l->eps.first_out) {
		log_err("%s: no bulk endpoints on interface 0; cannot sync with it", l->name);
		return;
	}
	log_info("%s arrived", l->name);
	l->pump = (struct pump){ 0 };
	l->dev = DEV_SETUP;
	l->deadline_ms = loop_now_ms() + SETUP_TIMEOUT_MS;
	palm_setup_start(&l->setup, l->name, d->vendor_id, d->product_id, &l->eps, &req);
	send_ctrl(l, CTRL_SETUP, &req);
}

static void on_device_disconnect(void *priv)
{
	struct redir_link *l = priv;

	/* the parser acks it (usb_redir_cap_device_disconnect_ack) */
	if (l->drop)
		return;
	l->departed = true;
	/* usbredirect serves no other device on this connection */
	drop_connection(l, "the handheld left");
}

static void on_control_packet(void *priv, uint64_t id, struct usb_redir_control_packet_header *h,
			      uint8_t *data, int data_len)
{
	struct redir_link *l = priv;
	size_t len = data_len > 0 ? (size_t)data_len : 0;
	bool ok = h->status == usb_redir_success;
	struct palm_ctrl next;

	if (l->drop) {
		/* the connection is going: nothing more from it counts */
	} else if (!l->ctrl_busy || id != l->ctrl_id || l->dev == DEV_NONE) {
		log_debug("usbredir server %s: a control reply nobody asked for (id %llu)",
			  l->server, (unsigned long long)id);
	} else if (len > l->ctrl_len) {
		drop_connection(l, "a control reply longer than asked");
	} else {
		l->ctrl_busy = false;
		if (l->dev == DEV_RUNNING)
			l->deadline_ms = 0;
		if (l->ctrl_purpose == CTRL_CLEAR_HALT)
			halt_cleared(l, ok);
		else if (l->ctrl_purpose == CTRL_SETUP && l->dev == DEV_SETUP) {
			if (palm_setup_reply(&l->setup, ok, data, len, &next))
				start_stream(l);
			else
				send_ctrl(l, CTRL_SETUP, &next);
		}
	}
	if (data)
		usbredirparser_free_packet_data(l->parser, data);
}

static void in_reply(struct redir_link *l, int i, uint8_t status, const uint8_t *data, size_t len)
{
	if (len > l->pump.in_size) {
		drop_connection(l, "a bulk IN reply longer than asked");
		return;
	}
	pump_in_done(&l->pump, i, status_of(status), data, len, loop_now_ms());
	submit_in(l);
}

static void on_bulk_packet(void *priv, uint64_t id, struct usb_redir_bulk_packet_header *h,
			   uint8_t *data, int data_len)
{
	struct redir_link *l = priv;
	size_t len = data_len > 0 ? (size_t)data_len : 0;
	int i = 0;

	if (l->drop || l->dev != DEV_RUNNING) {
		/* not for us, or the connection is going */
	} else if (h->endpoint == l->hs.in_ep) {
		while (i < PUMP_IN_MAX && !(l->pump.in_busy[i] && l->in_id[i] == id))
			i++;
		if (i < PUMP_IN_MAX)
			in_reply(l, i, h->status, data, len);
	} else if (l->pump.out_busy && id == l->out_id && h->endpoint == l->hs.out_ep) {
		/* what the device took leaves txq; the rest is sent again */
		pump_out_done(&l->pump, status_of(h->status),
			      ((size_t)h->length_high << 16) | h->length);
		kick_tx(l);
	}
	if (data)
		usbredirparser_free_packet_data(l->parser, data);
}

/* Packets a usb-guest never asked for: freed, and otherwise ignored. */
static void on_unasked_data(void *priv, uint8_t *data)
{
	struct redir_link *l = priv;

	log_debug("usbredir server %s: an unasked data packet ignored", l->server);
	if (data)
		usbredirparser_free_packet_data(l->parser, data);
}

static void on_iso_packet(void *priv, uint64_t id, struct usb_redir_iso_packet_header *h,
			  uint8_t *data, int data_len)
{
	on_unasked_data(priv, data);
}

static void on_interrupt_packet(void *priv, uint64_t id,
				struct usb_redir_interrupt_packet_header *h, uint8_t *data,
				int data_len)
{
	on_unasked_data(priv, data);
}

static void on_buffered_bulk_packet(void *priv, uint64_t id,
				    struct usb_redir_buffered_bulk_packet_header *h, uint8_t *data,
				    int data_len)
{
	on_unasked_data(priv, data);
}

static void on_filter_filter(void *priv, struct usbredirfilter_rule *rules, int count)
{
	free(rules); /* ours to free (usbredirparser.h) */
}

/* ---- the connection ---- */

static void watch_socket(struct redir_link *l, uint32_t events)
{
	if (events != l->sock_events && loop_mod(l->loop, &l->sock, events) == 0)
		l->sock_events = events;
}

/* Only from settle(), after_events() or sock_ready(): never in a callback. */
static void close_connection(struct redir_link *l, const char *why)
{
	bool was_up = l->conn == CONN_UP;

	forget_device(l, why);
	if (l->parser)
		usbredirparser_destroy(l->parser);
	l->parser = NULL;
	if (l->sock.fd >= 0) {
		loop_del(l->loop, &l->sock);
		close(l->sock.fd);
	}
	l->sock.fd = -1;
	l->eps = (struct palm_endpoints){ 0 };
	l->drop = NULL;
	l->queued = false;
	l->deadline_ms = 0;
	l->conn = CONN_WAITING;
	/* A departure is not a failure: the next handheld is called at once. */
	if (l->departed) {
		l->departed = false;
		l->retry_at_ms = loop_now_ms() + BACKOFF_FIRST_MS;
		log_info("usbredir server %s: disconnected after the handheld left; calling "
			 "again for the next",
			 l->server);
		return;
	}
	/* every address in turn; the pause grows once all have failed */
	if (!was_up && l->addr_next != l->addr_first) {
		l->retry_at_ms = loop_now_ms();
		log_debug("usbredir server %s: %s; trying its next address", l->server, why);
		return;
	}
	/* one line for each outage, not for each attempt */
	if (was_up || l->failures++ == 0)
		log_info("usbredir server %s: %s; calling again every %.1f s at most", l->server,
			 why, BACKOFF_MAX_MS / 1000.0);
	else
		log_debug("usbredir server %s: %s", l->server, why);
	if (was_up)
		l->failures = 1;
	l->addr_first = l->addr_next;
	l->retry_at_ms = loop_now_ms() + l->backoff_ms;
	l->backoff_ms = l->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : l->backoff_ms * 2;
}

static int create_parser(struct redir_link *l)
{
	uint32_t caps[USB_REDIR_CAPS_SIZE] = { 0 };
	struct usbredirparser *p = usbredirparser_create();
	static const int wanted[] = {
		usb_redir_cap_connect_device_version,  usb_redir_cap_device_disconnect_ack,
		usb_redir_cap_ep_info_max_packet_size, usb_redir_cap_64bits_ids,
		usb_redir_cap_32bits_bulk_length,
	};

	if (!p)
		return -ENOMEM;
	p->priv = l;
	p->log_func = on_log;
	p->read_func = on_read;
	p->write_func = on_write;
	p->hello_func = on_hello;
	p->device_connect_func = on_device_connect;
	p->device_disconnect_func = on_device_disconnect;
	p->interface_info_func = on_interface_info;
	p->ep_info_func = on_ep_info;
	p->control_packet_func = on_control_packet;
	p->bulk_packet_func = on_bulk_packet;
	p->iso_packet_func = on_iso_packet;
	p->interrupt_packet_func = on_interrupt_packet;
	p->buffered_bulk_packet_func = on_buffered_bulk_packet;
	p->filter_filter_func = on_filter_filter;
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		usbredirparser_caps_set_cap(caps, wanted[i]);
	usbredirparser_init(p, "pilotd " PILOTD_VERSION, caps, USB_REDIR_CAPS_SIZE, 0);
	l->parser = p;
	return 0;
}

/* A server that goes silent is noticed by TCP within USER_TIMEOUT_MS. */
static void set_tcp_options(int fd)
{
	static const struct {
		int level, name, value;
	} opts[] = {
		{ IPPROTO_TCP, TCP_NODELAY, 1 },
		{ SOL_SOCKET, SO_KEEPALIVE, 1 },
		{ IPPROTO_TCP, TCP_KEEPIDLE, KEEPALIVE_IDLE_S },
		{ IPPROTO_TCP, TCP_KEEPINTVL, KEEPALIVE_INTERVAL_S },
		{ IPPROTO_TCP, TCP_KEEPCNT, KEEPALIVE_COUNT },
		{ IPPROTO_TCP, TCP_USER_TIMEOUT, USER_TIMEOUT_MS },
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (setsockopt(fd, opts[i].level, opts[i].name, &opts[i].value,
			       sizeof(opts[i].value)) < 0)
			log_warn("setsockopt %d/%d: %s", opts[i].level, opts[i].name,
				 strerror(errno));
}

static void connected(struct redir_link *l)
{
	if (l->addr->ss_family != AF_UNIX)
		set_tcp_options(l->sock.fd);
	if (create_parser(l) < 0) {
		close_connection(l, "out of memory");
		return;
	}
	l->conn = CONN_HELLO;
	/* this address answers: call it first next time */
	l->addr_next = l->addr_first = (unsigned int)(l->addr - l->addrs);
	l->deadline_ms = loop_now_ms() + CONNECT_TIMEOUT_MS;
	log_debug("usbredir server %s: connected, waiting for its hello", l->server);
	settle(l);
}

/*
 * The top of the loop for this connection: drop it if a callback said
 * so, else send what is queued (EPOLLOUT while some waits).  A server
 * that does not take what we send is dropped once that passes
 * WRITE_QUEUE_MAX, before the queue can grow without bound.
 */
static void settle(struct redir_link *l)
{
	l->queued = false;
	if (l->parser && !l->drop && usbredirparser_has_data_to_write(l->parser))
		usbredirparser_do_write(l->parser);
	if (l->parser && !l->drop &&
	    usbredirparser_get_bufferered_output_size(l->parser) > WRITE_QUEUE_MAX)
		drop_connection(l, "it does not read what pilotd sends");
	if (l->drop) {
		close_connection(l, l->drop);
		return;
	}
	if (l->parser)
		watch_socket(
			l, EPOLLIN | (usbredirparser_has_data_to_write(l->parser) ? EPOLLOUT : 0));
}

/* Parse at most READ_BUDGET bytes, writing the answers after each chunk. */
static void read_server(struct redir_link *l)
{
	for (size_t done = 0; done < READ_BUDGET && !l->drop; done += READ_CHUNK) {
		int r;

		l->read_budget = READ_CHUNK;
		r = usbredirparser_do_read(l->parser);
		if (r == usbredirparser_read_parse_error)
			drop_connection(l, "it broke the usbredir protocol");
		else if (r < 0)
			drop_connection(l, "the connection failed");
		if (l->read_budget > 0)
			break; /* the socket is empty */
		settle(l);
		if (!l->parser)
			return;
	}
	l->read_budget = 0;
}

static void sock_ready(void *ctx, uint32_t events)
{
	struct redir_link *l = ctx;

	if (l->conn == CONN_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(l->sock.fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err)
			close_connection(l, strerror(err));
		else
			connected(l);
		return;
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		read_server(l);
	if (!l->parser)
		return;
	/* the port may have room or bytes now */
	submit_in(l);
	kick_tx(l);
	settle(l);
}

static void call_server(struct redir_link *l)
{
	int fd;

	l->addr = &l->addrs[l->addr_next];
	l->addr_next = (l->addr_next + 1) % l->naddrs;
	fd = socket(l->addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		/* a sandbox (RestrictAddressFamilies=) says EAFNOSUPPORT */
		close_connection(l, errno == EAFNOSUPPORT
					    ? "this address family is not allowed here"
					    : strerror(errno));
		return;
	}
	l->sock = (struct watch){ .fd = fd, .ready = sock_ready, .ctx = l };
	l->sock_events = EPOLLOUT;
	if (loop_add(l->loop, &l->sock, EPOLLOUT) < 0) {
		close(fd);
		l->sock.fd = -1;
		close_connection(l, "cannot watch the socket");
		return;
	}
	l->conn = CONN_CONNECTING;
	l->deadline_ms = loop_now_ms() + CONNECT_TIMEOUT_MS;
	if (connect(fd, (struct sockaddr *)l->addr, l->addrlens[l->addr - l->addrs]) == 0)
		connected(l);
	else if (errno != EINPROGRESS)
		close_connection(l, strerror(errno));
}

/* ---- the transport's ops ---- */

static int timeout_ms(struct link *base)
{
	struct redir_link *l = (struct redir_link *)base;
	uint64_t at = l->conn == CONN_WAITING ? l->retry_at_ms : l->deadline_ms;
	uint64_t now = loop_now_ms();

	if (l->drop || l->queued)
		return 0; /* noted by the port's hooks at the end of the round */
	if (at == 0)
		return -1;
	return at <= now ? 0 : (int)(at - now);
}

static void after_events(struct link *base, bool timed_out)
{
	struct redir_link *l = (struct redir_link *)base;
	uint64_t now = loop_now_ms();

	if (l->conn == CONN_WAITING && now >= l->retry_at_ms) {
		call_server(l);
		return;
	}
	if (l->deadline_ms && now >= l->deadline_ms) {
		close_connection(l, l->conn == CONN_CONNECTING ? "no answer"
				    : l->conn == CONN_HELLO    ? "no hello from the server"
				    : l->dev == DEV_SETUP      ? "the handheld's set-up timed out"
							  : "a control request went unanswered");
		return;
	}
	if (l->conn == CONN_UP && pump_verdict(&l->pump) == PUMP_GIVE_UP)
		drop_connection(l, l->pump.why);
	if (l->conn == CONN_UP) {
		recover(l);
		submit_in(l);
		kick_tx(l);
	}
	if (l->conn == CONN_HELLO || l->conn == CONN_UP)
		settle(l);
}

/* The port's hooks: queue packets only; settle() sends them after the round. */
static void kick_tx_op(struct link *base)
{
	kick_tx((struct redir_link *)base);
}

static void rx_room(struct link *base)
{
	submit_in((struct redir_link *)base);
}

/* The visor driver tells the handheld on every close of the port. */
static void last_close(struct link *base)
{
	struct redir_link *l = (struct redir_link *)base;

	if (l->dev == DEV_RUNNING && !l->ctrl_busy && !l->drop)
		send_ctrl(l, CTRL_CLOSE_NOTIFICATION, &palm_close_notification);
}

static void stop(struct link *base)
{
	struct redir_link *l = (struct redir_link *)base;

	/* Give queued bytes time to reach the handheld. */
	for (int i = 0; i < PUMP_STOP_DRAIN_MS / 100 && l->parser && l->dev == DEV_RUNNING &&
			port_tx_queued(l->port);
	     i++) {
		struct pollfd pfd = {
			.fd = l->sock.fd,
			.events = POLLIN |
				  (usbredirparser_has_data_to_write(l->parser) ? POLLOUT : 0),
		};

		if (poll(&pfd, 1, 100) > 0)
			sock_ready(l, pfd.revents & (POLLIN | POLLHUP | POLLERR) ? EPOLLIN : 0);
	}
	for (int i = 0; i < PUMP_IN_MAX && l->parser && l->dev == DEV_RUNNING; i++)
		if (l->pump.in_busy[i])
			usbredirparser_send_cancel_data_packet(l->parser, l->in_id[i]);
	if (l->parser && !l->drop && usbredirparser_has_data_to_write(l->parser))
		usbredirparser_do_write(l->parser);
	forget_device(l, "released: pilotd is stopping");
	if (l->parser)
		usbredirparser_destroy(l->parser);
	if (l->sock.fd >= 0) {
		loop_del(l->loop, &l->sock);
		close(l->sock.fd);
	}
	free(l->out_buf);
	free(l);
}

static const struct link_ops usbredir_ops = {
	.timeout_ms = timeout_ms,
	.after_events = after_events,
	.kick_tx = kick_tx_op,
	.rx_room = rx_room,
	.last_close = last_close,
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
	l->match = *m;
	l->loop = loop;
	l->port = port;
	l->server = server;
	l->sock.fd = -1;
	l->backoff_ms = BACKOFF_FIRST_MS;
	l->out_buf = malloc(OUT_PACKET_MAX);
	if (!l->out_buf)
		return -ENOMEM;
	r = parse_server(l, server);
	if (r < 0) {
		if (r != -EHOSTUNREACH)
			log_err("bad --usbredir '%s': expected HOST:PORT, [IPv6]:PORT or a socket "
				"path",
				server);
		return r;
	}
	log_info("handhelds from usbredir server %s", server);
	call_server(l);
	return 0;
}
