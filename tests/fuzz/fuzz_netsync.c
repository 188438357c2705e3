// SPDX-License-Identifier: MIT
/*
 * pilotd's network HotSync transport (link_netsync.c, the pump and the
 * port) with real TCP peers on loopback and a real event loop, the peers'
 * and the desktop's moves taken from the input: up to PEERS_MAX peers
 * connect, send, half-close, close or reset at any time; the desktop
 * reads, writes and, after each end of file, opens again; time passes
 * past a short idle timeout.  The port's front and hooks are
 * port_harness.h's, as in fuzz_redir.c.
 *
 * Peer k (each connects once) sends only bytes k*64 + (i % 64), i
 * counting its stream, so each byte tells whose it is and where it stood.
 * Checked: what one open file reads comes from one peer only, from that
 * peer's first byte on, in order, nothing skipped (nothing of one
 * connection reaches the next); nothing is ever read of a peer that
 * connected while the carrier was up (a second connection is refused:
 * only the docked one reaches /dev/pilot; the link accepts it in the next
 * round, before any departure of that round); every request is answered
 * exactly once by the end; no transport hook runs inside another.
 *
 * AddressSanitizer and UBSan see every callback; a crash, a leak, a
 * report or a failed check is a finding.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/loop.h"
#include "core/port.h"
#include "fuzz_input.h"
#include "link.h"
#include "port_harness.h"
#include "raw_termios.h"

#define OPS_MAX	  300
#define REQS_MAX  2048
#define PEERS_MAX 4
#define IDLE_MS	  20

static struct {
	struct port port;
	struct loop loop;
	struct link *link;
	struct ph h;
	uint64_t fh;
	bool have_file, open_parked, read_parked, write_parked, ended;
	void *read_req, *write_req;
	int peer_of_file; /* whose bytes this file reads, or -1 */
	size_t next_of_file;
	struct {
		int fd;
		bool used, refused; /* connected once; while the carrier was up */
		size_t sent;
	} peers[PEERS_MAX];
	uint16_t port_no;
} fz;

static void *new_req(void)
{
	FUZZ_CHECK(fz.h.nreq < REQS_MAX);
	return ph_req(&fz.h);
}

/* The bytes one file reads: one peer's stream, from its start, in order. */
static void check_bytes(const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		int k = b[i] / 64;

		if (fz.peer_of_file < 0) {
			fz.peer_of_file = k;
			fz.next_of_file = 0;
		}
		FUZZ_CHECK(k == fz.peer_of_file);
		FUZZ_CHECK(!fz.peers[k].refused);
		FUZZ_CHECK(b[i] % 64 == fz.next_of_file % 64);
		fz.next_of_file++;
	}
}

static int on_answer(struct ph *h, void *req, const struct ph_answer *a)
{
	FUZZ_CHECK(a->count == 1);
	switch (a->kind) {
	case PH_OPEN:
		fz.fh = a->fh;
		fz.have_file = true;
		fz.open_parked = false;
		fz.peer_of_file = -1;
		break;
	case PH_DATA:
		if (req != fz.read_req)
			break;
		fz.read_parked = false;
		if (a->len == 0)
			fz.ended = true; /* the handheld left: open again */
		check_bytes(a->data, a->len);
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

static void on_hook(struct ph *h, enum ph_hook hook)
{
	FUZZ_CHECK(h->depth == 1);
}

/* A free port once (listen sockets reuse it: SO_REUSEADDR). */
static void pick_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		perror("fuzz_netsync: a port");
		abort();
	}
	fz.port_no = ntohs(a.sin_port);
	close(fd);
}

static void round_once(void)
{
	int n = loop_run_once(&fz.loop, 0);

	fz.link->ops->after_events(fz.link, n == 0);
	port_after_events(&fz.port, loop_now_ms());
}

/* ---- the desktop ---- */

static void desktop_reopen(void)
{
	const struct port_open_args args = { .uid = 0 };

	if (fz.ended && !fz.read_parked && !fz.write_parked) {
		port_release(&fz.port, fz.fh);
		fz.have_file = fz.ended = false;
	}
	if (!fz.have_file && !fz.open_parked) {
		fz.open_parked = true;
		port_open(&fz.port, new_req(), &args);
	}
}

static void desktop_read(size_t size)
{
	if (!fz.have_file || fz.read_parked || fz.ended)
		return;
	fz.read_parked = true;
	fz.read_req = new_req();
	port_read(&fz.port, fz.read_req, fz.fh, size ? size : 1, false, loop_now_ms());
}

static void desktop_write(struct input *in)
{
	size_t n = (size_t)input_u8(in) * 16 + 1;
	uint8_t *b;

	if (!fz.have_file || fz.write_parked || fz.ended)
		return;
	b = input_bytes(in, n);
	fz.write_parked = true;
	fz.write_req = new_req();
	port_write(&fz.port, fz.write_req, fz.fh, b, n, true);
	free(b);
}

/* ---- the peers ---- */

static void peer_connect(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(fz.port_no),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	for (int k = 0; k < PEERS_MAX; k++) {
		if (fz.peers[k].used)
			continue;
		fz.peers[k].used = true;
		fz.peers[k].refused = fz.port.carrier;
		fz.peers[k].fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fz.peers[k].fd >= 0)
			connect(fz.peers[k].fd, (struct sockaddr *)&a, sizeof(a));
		return;
	}
}

static void peer_send(int k, size_t n)
{
	uint8_t b[4096];
	ssize_t r;

	if (fz.peers[k].fd < 0)
		return;
	n = n < sizeof(b) ? n : sizeof(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(k * 64 + (fz.peers[k].sent + i) % 64);
	r = send(fz.peers[k].fd, b, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (r > 0)
		fz.peers[k].sent += (size_t)r;
}

static void peer_drain(int k)
{
	uint8_t b[4096];

	if (fz.peers[k].fd >= 0)
		while (recv(fz.peers[k].fd, b, sizeof(b), MSG_DONTWAIT) > 0)
			;
}

static void peer_close(int k, bool reset)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (fz.peers[k].fd < 0)
		return;
	if (reset)
		setsockopt(fz.peers[k].fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fz.peers[k].fd);
	fz.peers[k].fd = -1;
}

static void run(struct input *in)
{
	for (int op = 0; op < OPS_MAX && in->left > 0; op++) {
		uint8_t what = input_u8(in), arg = input_u8(in);
		int k = arg % PEERS_MAX;

		switch (what % 10) {
		case 0: peer_connect(); break;
		case 1: peer_send(k, (size_t)arg * 16 + 1); break;
		case 2:
			if (fz.peers[k].fd >= 0)
				shutdown(fz.peers[k].fd, SHUT_WR);
			break;
		case 3: peer_close(k, arg & 0x80); break;
		case 4: peer_drain(k); break;
		case 5: desktop_read((size_t)arg * 64); break;
		case 6: desktop_write(in); break;
		case 7: usleep(IDLE_MS * 1000 + 1000); break; /* past the idle timeout */
		default:
			for (int r = 0; r <= arg % 4; r++)
				round_once();
			break;
		}
		desktop_reopen();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct port_config cfg = {
		.rxq_size = 64 * 1024,
		.txq_size = 128 * 1024,
		.read_max = 65536,
		.files_max = 4,
		.parked_max = 16,
		.parked_write_bytes = 65536,
		.closing_wait_ms = 30000,
		.rx_inflight_max = PUMP_IN_WINDOW,
	};
	struct input in = { .p = data, .left = size };
	struct netsync_config ns = { .idle_ms = IDLE_MS };
	char listen_at[32];

	if (!fz.port_no)
		pick_port();
	snprintf(listen_at, sizeof(listen_at), "127.0.0.1:%u", fz.port_no);
	ns.listen = listen_at;
	for (int k = 0; k < PEERS_MAX; k++)
		fz.peers[k].fd = -1, fz.peers[k].used = false, fz.peers[k].sent = 0;
	fz.have_file = fz.open_parked = fz.read_parked = fz.write_parked = fz.ended = false;
	if (loop_init(&fz.loop) < 0 || ph_init(&fz.h, &fz.port, &cfg, REQS_MAX) < 0)
		abort();
	fz.h.on_answer = on_answer;
	fz.h.on_hook = on_hook;
	fz.h.clock = loop_now_ms;
	make_raw_termios(&fz.port.tty.termios);
	if (link_netsync_start(&fz.link, &ns, &fz.loop, &fz.port) < 0)
		abort();
	fz.h.pump = fz.link->pump;
	desktop_reopen();
	run(&in);
	for (int k = 0; k < PEERS_MAX; k++)
		peer_close(k, false);
	for (int r = 0; r < 4; r++)
		round_once();
	fz.link->ops->stop(fz.link);
	fz.link = NULL;
	fz.h.pump = NULL;
	FUZZ_CHECK(ph_close_all(&fz.h) == 0);
	FUZZ_CHECK(fz.h.max_depth <= 1);
	ph_free(&fz.h);
	loop_free(&fz.loop);
	return 0;
}
