// SPDX-License-Identifier: MIT
/*
 * pilotd's usbredir client (link_usbredir.c, the pump and the port) fed a
 * fuzzed server over a Unix socket, with a desktop that has a file open
 * (as root or not, from the input) and keeps bytes queued.  The port's
 * front and hooks are port_harness.h's, its transport hooks wired to the
 * link's pump as main.c wires them: every port request is a distinct one,
 * checked to be answered at most once as each answer comes and exactly
 * once by the end; no transport hook runs inside another.  Two modes, by the
 * input's first byte:
 *
 *   even  the input is the byte stream a server sends, as it is (the
 *         parser's and the callbacks' robustness; seeds: corpus/redir,
 *         a hello, the endpoints and a device_connect, then replies);
 *   odd   a server that speaks the protocol (libusbredirparser as the
 *         usb host) and lets the input decide each answer: IN replies of
 *         any length up to what was asked, with any status, OUT replies
 *         that take all, part or nothing, stalls, halts cleared or not,
 *         answers held back, packets nobody asked for; the desktop
 *         writes and reads as the input says.  Checked byte for byte:
 *         what the desktop reads is what the server's IN replies carried,
 *         in order, and each OUT packet carries the next bytes the
 *         desktop wrote after those the server took; at the end nothing
 *         is lost (read + rxq = sent; taken + txq = written).
 *
 * AddressSanitizer and UBSan see every callback; a crash, a leak, a
 * report or a failed check is a finding.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <usbredirparser.h>

#include "core/loop.h"
#include "core/port.h"
#include "fuzz_input.h"
#include "link.h"
#include "port_harness.h"
#include "raw_termios.h"

#define ROUNDS_MAX 400
#define REQS_MAX    1024 /* a read and a write a round at most, and the open */
#define STREAM_MAX (1u << 20)
#define PENDING_MAX 64

struct pending {
	uint64_t id;
	uint8_t ep;
	uint32_t len;
};

static struct {
	struct port port;
	struct loop loop;
	struct link *link;
	struct ph h; /* the desktop's requests and their answers */
	uint64_t fh;
	bool have_file, read_parked, write_parked;
	void *read_req, *write_req;
	bool checked; /* the scripted mode: bytes are checked */

	/* the scripted server */
	struct usbredirparser *host;
	int conn;
	bool hello, connected, gone;
	struct pending in[PENDING_MAX], out[PENDING_MAX], ctrl[PENDING_MAX];
	unsigned int nin, nout, nctrl;
	/* IN: what the server's replies carried; what the desktop read */
	uint8_t *sent, *got;
	size_t nsent, ngot;
	/* OUT: what the desktop's writes queued; what the server took */
	uint8_t *written;
	size_t nwritten, taken;
} fz;

static char sock_path[108];
static int listener = -1;

static void *new_req(void)
{
	FUZZ_CHECK(fz.h.nreq < REQS_MAX);
	return ph_req(&fz.h);
}

/* Each answer, the first to its request: what the desktop learns of it. */
static int on_answer(struct ph *h, void *req, const struct ph_answer *a)
{
	FUZZ_CHECK(a->count == 1);
	switch (a->kind) {
	case PH_OPEN:
		fz.fh = a->fh;
		fz.have_file = true;
		break;
	case PH_DATA:
		if (req != fz.read_req)
			break;
		fz.read_parked = false;
		if (!fz.checked)
			break;
		FUZZ_CHECK(fz.ngot + a->len <= STREAM_MAX && a->len <= PH_DATA_MAX);
		memcpy(fz.got + fz.ngot, a->data, a->len);
		fz.ngot += a->len;
		break;
	case PH_WRITTEN: fz.write_parked = false; break;
	case PH_ERR:
		if (req == fz.read_req)
			fz.read_parked = false;
		if (req == fz.write_req)
			fz.write_parked = false;
		break;
	default: break;
	}
	return 0;
}

/* No transport hook inside another (the harness counts the depth). */
static void on_hook(struct ph *h, enum ph_hook hook)
{
	FUZZ_CHECK(h->depth == 1);
}

static void listen_once(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	snprintf(sock_path, sizeof(sock_path), "/tmp/pilotd-fuzz-redir.%d.sock", (int)getpid());
	unlink(sock_path);
	strcpy(a.sun_path, sock_path);
	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(listener, 4) < 0) {
		perror("fuzz_redir: listen");
		abort();
	}
	fz.sent = malloc(STREAM_MAX);
	fz.got = malloc(STREAM_MAX);
	fz.written = malloc(STREAM_MAX);
	if (!fz.sent || !fz.got || !fz.written)
		abort();
}

/* One round of pilotd's loop, as main.c runs it. */
static void round_once(void)
{
	int n = loop_run_once(&fz.loop, 0);

	fz.link->ops->after_events(fz.link, n == 0);
	port_after_events(&fz.port, loop_now_ms());
}

/* ---- the desktop ---- */

static void desktop_read(void)
{
	if (!fz.have_file || fz.read_parked)
		return;
	fz.read_req = new_req();
	fz.read_parked = true;
	port_read(&fz.port, fz.read_req, fz.fh, 4096, false, loop_now_ms());
}

static void desktop_write(size_t n)
{
	static uint8_t buf[70000];
	size_t before = port_tx_queued(&fz.port);

	if (!fz.have_file || fz.write_parked || !fz.port.carrier || n == 0)
		return;
	if (n > sizeof(buf))
		n = sizeof(buf);
	if (fz.nwritten + n > STREAM_MAX)
		return;
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)((fz.nwritten + i) * 131 + 7); /* a pattern that shows shifts */
	fz.write_parked = true;
	fz.write_req = new_req();
	port_write(&fz.port, fz.write_req, fz.fh, buf, n, true); /* non-blocking: answered now */
	FUZZ_CHECK(!fz.write_parked);
	if (!fz.checked)
		return;
	/* raw settings: what txq took is the write's start */
	FUZZ_CHECK(port_tx_queued(&fz.port) - before <= n);
	memcpy(fz.written + fz.nwritten, buf, port_tx_queued(&fz.port) - before);
	fz.nwritten += port_tx_queued(&fz.port) - before;
}

/* ---- the scripted server (libusbredirparser as the usb host) ---- */

static int host_read(void *priv, uint8_t *data, int count)
{
	ssize_t n = recv(fz.conn, data, (size_t)count, MSG_DONTWAIT);

	if (n == 0)
		fz.gone = true; /* pilotd hung up */
	return n > 0 ? (int)n : 0;
}

static int host_write(void *priv, uint8_t *data, int count)
{
	ssize_t n = send(fz.conn, data, (size_t)count, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0 && errno != EAGAIN)
		fz.gone = true;
	return n > 0 ? (int)n : 0;
}

static void host_log(void *priv, int level, const char *msg)
{
}

static void host_hello(void *priv, struct usb_redir_hello_header *h)
{
	fz.hello = true;
}

static void queue_pending(struct pending *q, unsigned int *n, uint64_t id, uint8_t ep,
			  uint32_t len)
{
	FUZZ_CHECK(*n < PENDING_MAX);
	q[(*n)++] = (struct pending){ .id = id, .ep = ep, .len = len };
}

static void take_pending(struct pending *q, unsigned int *n, unsigned int i)
{
	memmove(&q[i], &q[i + 1], (*n - i - 1) * sizeof(q[0]));
	(*n)--;
}

static void host_control(void *priv, uint64_t id, struct usb_redir_control_packet_header *h,
			 uint8_t *data, int len)
{
	queue_pending(fz.ctrl, &fz.nctrl, id, h->requesttype, h->request | (uint32_t)h->length << 8);
	if (data)
		usbredirparser_free_packet_data(fz.host, data);
}

/* An OUT packet carries the next bytes written after those taken. */
static void host_bulk(void *priv, uint64_t id, struct usb_redir_bulk_packet_header *h,
		      uint8_t *data, int len)
{
	uint32_t want = (uint32_t)h->length | (uint32_t)h->length_high << 16;

	if (h->endpoint & 0x80) {
		FUZZ_CHECK(len == 0 && want > 0 && want <= 1024);
		queue_pending(fz.in, &fz.nin, id, h->endpoint, want);
	} else {
		FUZZ_CHECK((uint32_t)len == want && want > 0);
		FUZZ_CHECK(fz.taken + (size_t)len <= fz.nwritten);
		FUZZ_CHECK(memcmp(data, fz.written + fz.taken, (size_t)len) == 0);
		FUZZ_CHECK(fz.nout == 0); /* one OUT packet at a time */
		queue_pending(fz.out, &fz.nout, id, h->endpoint, want);
	}
	if (data)
		usbredirparser_free_packet_data(fz.host, data);
}

/* usbredirhost answers a cancelled transfer as cancelled, with no data. */
static void host_cancel(void *priv, uint64_t id)
{
	for (unsigned int i = 0; i < fz.nin; i++) {
		if (fz.in[i].id == id) {
			struct usb_redir_bulk_packet_header h = { .endpoint = fz.in[i].ep,
								  .status = usb_redir_cancelled };

			usbredirparser_send_bulk_packet(fz.host, id, &h, NULL, 0);
			take_pending(fz.in, &fz.nin, i);
			return;
		}
	}
}

static void host_start(void)
{
	struct usbredirparser *p = usbredirparser_create();
	uint32_t caps[USB_REDIR_CAPS_SIZE] = { 0 };
	static const int wanted[] = {
		usb_redir_cap_connect_device_version,  usb_redir_cap_device_disconnect_ack,
		usb_redir_cap_ep_info_max_packet_size, usb_redir_cap_64bits_ids,
		usb_redir_cap_32bits_bulk_length,
	};

	if (!p)
		abort();
	p->log_func = host_log;
	p->read_func = host_read;
	p->write_func = host_write;
	p->hello_func = host_hello;
	p->control_packet_func = host_control;
	p->bulk_packet_func = host_bulk;
	p->cancel_data_packet_func = host_cancel;
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		usbredirparser_caps_set_cap(caps, wanted[i]);
	usbredirparser_init(p, "fuzz server", caps, USB_REDIR_CAPS_SIZE,
			    usbredirparser_fl_usb_host);
	fz.host = p;
}

/* A Palm with bulk 0x81/0x02 of 64 bytes, once pilotd said hello. */
static void host_connect(void)
{
	struct usb_redir_ep_info_header ep = { 0 };
	struct usb_redir_device_connect_header dc = {
		.speed = usb_redir_speed_full, .vendor_id = 0x0830, .product_id = 0x0060,
	};

	for (int i = 0; i < 32; i++)
		ep.type[i] = usb_redir_type_invalid;
	ep.type[0x11] = ep.type[0x02] = usb_redir_type_bulk; /* 0x81, 0x02 */
	ep.max_packet_size[0x11] = ep.max_packet_size[0x02] = 64;
	usbredirparser_send_ep_info(fz.host, &ep);
	usbredirparser_send_device_connect(fz.host, &dc);
	fz.connected = true;
}

/* Control requests: the set-up's are refused (the first bulk pair is
 * taken), a halt is cleared or not, GET_STATUS is answered. */
static void answer_ctrl(struct input *in)
{
	while (fz.nctrl > 0) {
		struct pending c = fz.ctrl[0];
		struct usb_redir_control_packet_header h = { .requesttype = c.ep,
							     .request = (uint8_t)c.len,
							     .status = usb_redir_stall };
		uint8_t status[2] = { 0 };

		take_pending(fz.ctrl, &fz.nctrl, 0);
		if (h.request == 0x01 && !(c.ep & 0x80)) /* CLEAR_FEATURE */
			h.status = input_u8(in) % 8 ? usb_redir_success : usb_redir_stall;
		if (h.request == 0x00 && (c.ep & 0x80)) { /* GET_STATUS */
			h.status = usb_redir_success;
			h.length = 2;
		}
		usbredirparser_send_control_packet(fz.host, c.id, &h, h.length ? status : NULL,
						   h.length);
	}
}

/* Mostly success (the 10th halt within 60 s ends the session). */
static uint8_t status_of(uint8_t a)
{
	static const uint8_t failures[] = { usb_redir_stall, usb_redir_babble, usb_redir_ioerror,
					    usb_redir_timeout };

	return (a >> 2) >= 60 ? failures[(a >> 2) - 60] : usb_redir_success;
}

/* The oldest IN request: answered with what the input says, or held. */
static void answer_in(struct input *in)
{
	uint8_t a = input_u8(in), data[1024];
	struct pending r;
	struct usb_redir_bulk_packet_header h;
	size_t n;

	if (fz.nin == 0 || a % 4 == 3)
		return; /* held back */
	r = fz.in[0];
	take_pending(fz.in, &fz.nin, 0);
	n = input_u8(in) % (r.len + 1);
	h = (struct usb_redir_bulk_packet_header){ .endpoint = r.ep,
						   .status = status_of(a),
						   .length = (uint16_t)n };
	for (size_t i = 0; i < n; i++)
		data[i] = input_u8(in);
	FUZZ_CHECK(fz.nsent + n <= STREAM_MAX);
	memcpy(fz.sent + fz.nsent, data, n);
	fz.nsent += n;
	usbredirparser_send_bulk_packet(fz.host, r.id, &h, n ? data : NULL, (int)n);
}

/* The OUT packet: the device takes all, part or none of it. */
static void answer_out(struct input *in)
{
	uint8_t a = input_u8(in);
	struct pending r;
	struct usb_redir_bulk_packet_header h;
	uint32_t n;

	if (fz.nout == 0 || a % 4 == 3)
		return;
	r = fz.out[0];
	take_pending(fz.out, &fz.nout, 0);
	n = a % 4 == 0 ? input_u16(in) % (r.len + 1) : r.len;
	h = (struct usb_redir_bulk_packet_header){ .endpoint = r.ep,
						   .status = status_of(a),
						   .length = (uint16_t)(n & 0xffff),
						   .length_high = (uint16_t)(n >> 16) };
	fz.taken += n;
	usbredirparser_send_bulk_packet(fz.host, r.id, &h, NULL, 0);
}

static void server_step(struct input *in)
{
	uint8_t a;

	if (usbredirparser_do_read(fz.host) < 0 && !fz.gone)
		FUZZ_CHECK(!"pilotd broke the protocol");
	if (fz.hello && !fz.connected)
		host_connect();
	answer_ctrl(in);
	a = input_u8(in);
	if (a & 1)
		answer_in(in);
	if (a & 2)
		answer_out(in);
	if ((a & 0x1c) == 0x1c) /* a packet nobody asked for */
		usbredirparser_send_interrupt_packet(
			fz.host, 99, &(struct usb_redir_interrupt_packet_header){ .endpoint = 0x83 },
			NULL, 0);
	if (a & 0x20)
		desktop_write((size_t)input_u16(in) % 9000 + 1);
	if (a & 0x40)
		desktop_read();
	while (usbredirparser_has_data_to_write(fz.host))
		if (usbredirparser_do_write(fz.host) < 0 || fz.gone)
			break;
}

/* What the server sent reached the desktop, in order; what the desktop
 * wrote reached the server or waits in txq. */
static void check_streams(bool final)
{
	FUZZ_CHECK(fz.ngot <= fz.nsent);
	FUZZ_CHECK(memcmp(fz.got, fz.sent, fz.ngot) == 0);
	FUZZ_CHECK(fz.taken <= fz.nwritten);
	if (!final)
		return;
	FUZZ_CHECK(fz.ngot + byteq_len(&fz.port.rxq) == fz.nsent);
	FUZZ_CHECK(fz.taken + port_tx_queued(&fz.port) == fz.nwritten);
}

static void run_scripted(struct input *in)
{
	for (int r = 0; r < ROUNDS_MAX && in->left > 0 && !fz.gone; r++) {
		server_step(in);
		round_once();
		check_streams(false);
		if (fz.connected && !fz.port.carrier && fz.nsent + fz.taken > 0)
			break; /* given up (halts): the bytes went with the session */
	}
	/* the rest read, without more from the server */
	for (int r = 0; r < 8 && fz.port.carrier && !fz.gone; r++) {
		desktop_read();
		if (usbredirparser_do_read(fz.host) < 0)
			break;
		while (usbredirparser_has_data_to_write(fz.host) && !fz.gone)
			if (usbredirparser_do_write(fz.host) < 0)
				break;
		round_once();
	}
	check_streams(fz.port.carrier && !fz.gone);
	if (getenv("FUZZ_REDIR_VERBOSE"))
		fprintf(stderr, "fuzz_redir: IN %zu sent, %zu read; OUT %zu written, %zu taken%s\n",
			fz.nsent, fz.ngot, fz.nwritten, fz.taken,
			fz.port.carrier ? "" : " (given up: halts)");
}

/* The input as the server's byte stream. */
static void run_raw(const uint8_t *data, size_t size)
{
	size_t written = 0;
	int outq = 0;

	for (int r = 0; r < ROUNDS_MAX; r++) {
		if (written < size) {
			ssize_t n = send(fz.conn, data + written, size - written, MSG_NOSIGNAL);

			if (n > 0)
				written += (size_t)n;
		}
		/* a desktop keeps bytes queued, once a handheld is there */
		if (fz.port.carrier && port_tx_queued(&fz.port) < 4096)
			desktop_write(1 + (r * 7919) % 70000);
		desktop_read();
		round_once();
		while (recv(fz.conn, fz.got, 65536, MSG_DONTWAIT) > 0)
			; /* what pilotd sends: not looked at here */
		if (ioctl(fz.conn, SIOCOUTQ, &outq) == 0 && outq == 0 && written == size && r > 4)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct port_config cfg = {
		.rxq_size = 64 * 1024,
		.txq_size = 128 * 1024,
		.read_max = 4096,
		.files_max = 4,
		.parked_max = 16,
		.parked_write_bytes = 65536,
		.closing_wait_ms = 30000,
	};
	const struct link_match match = { .any_palm = true };
	struct input in = { .p = data, .left = size };
	uint8_t mode = input_u8(&in);
	struct port_open_args open_args = { .uid = input_u8(&in) & 1 ? 1000 : 0 };

	if (listener < 0)
		listen_once();
	fz.have_file = fz.read_parked = fz.write_parked = false;
	fz.host = NULL;
	fz.hello = fz.connected = fz.gone = false;
	fz.nin = fz.nout = fz.nctrl = 0;
	fz.nsent = fz.ngot = fz.nwritten = fz.taken = 0;
	fz.checked = mode & 1;
	if (loop_init(&fz.loop) < 0 || ph_init(&fz.h, &fz.port, &cfg, REQS_MAX) < 0)
		abort();
	fz.h.on_answer = on_answer;
	fz.h.on_hook = on_hook;
	fz.h.clock = loop_now_ms; /* as link.h's hooks drive the pump */
	if (fz.checked)
		make_raw_termios(&fz.port.tty.termios);
	port_open(&fz.port, new_req(), &open_args);
	desktop_read(); /* it listens: IN requests go out */
	if (link_usbredir_start(&fz.link, &match, sock_path, &fz.loop, &fz.port) < 0)
		abort();
	fz.h.pump = fz.link->pump;
	fz.conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fz.conn < 0)
		abort();
	if (fz.checked) {
		host_start();
		run_scripted(&in);
	} else {
		run_raw(data, size);
	}
	close(fz.conn); /* the server goes: a departure */
	for (int r = 0; r < 4; r++)
		round_once();
	fz.link->ops->stop(fz.link);
	fz.link = NULL;
	fz.h.pump = NULL;
	if (fz.host)
		usbredirparser_destroy(fz.host);
	/* shut down, the file released: every request answered, once */
	FUZZ_CHECK(ph_close_all(&fz.h) == 0);
	FUZZ_CHECK(fz.h.max_depth <= 1);
	ph_free(&fz.h);
	loop_free(&fz.loop);
	return 0;
}
