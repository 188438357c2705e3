// SPDX-License-Identifier: MIT
/*
 * pilotd's usbredir client (pilotd/link_usbredir.c) fed a fuzzed server:
 * the input is the byte stream a usbredir server sends, written into
 * the client's connection over a Unix socket, while a desktop has a file
 * open and bytes queued to send (so IN requests, OUT packets and control
 * requests are out).  The client runs its real event loop until it has
 * read everything, then the server hangs up and the client is stopped.
 * AddressSanitizer and UBSan see every callback; a crash, a leak or a
 * report is a finding.  Seeds: corpus/redir (a hello, the endpoints and
 * a device_connect of each stack, then replies).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/loop.h"
#include "core/port.h"
#include "fuzz_input.h"
#include "link.h"

#define ROUNDS_MAX 400

static struct {
	struct port port;
	struct loop loop;
	struct link *link;
	int req; /* the stand-in request */
	uint64_t fh;
	bool have_file;
} fz;

static char sock_path[108];
static int listener = -1;

static int h_open(void *ctx, void *req, uint64_t fh)
{
	fz.fh = fh;
	fz.have_file = true;
	return 0;
}

static void h_data(void *ctx, void *req, const void *buf, size_t len)
{
}

static void h_written(void *ctx, void *req, size_t len)
{
}

static void h_ioctl(void *ctx, void *req, const void *out, size_t len)
{
}

static void h_fetch(void *ctx, void *req, uintptr_t arg, size_t in, size_t out)
{
}

static void h_err(void *ctx, void *req, int err)
{
}

static void nothing(void *ctx, void *p)
{
}

static void h_tx_ready(void *ctx)
{
	if (fz.link)
		link_tx_ready(fz.link);
}

static void h_rx_room(void *ctx)
{
	if (fz.link)
		link_rx_room(fz.link);
}

static void h_tx_abort(void *ctx)
{
	if (fz.link)
		link_tx_abort(fz.link);
}

static void h_rx_stop(void *ctx)
{
	if (fz.link)
		link_rx_stop(fz.link);
}

static void h_last_close(void *ctx)
{
	if (fz.link)
		link_last_close(fz.link);
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
}

/* One round of pilotd's loop, as main.c runs it. */
static void round_once(void)
{
	int n = loop_run_once(&fz.loop, 0);

	fz.link->ops->after_events(fz.link, n == 0);
	port_after_events(&fz.port, loop_now_ms());
}

static void drain(int conn)
{
	char sink[65536];

	while (recv(conn, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
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
	static const struct port_hooks hooks = {
		.answer_open = h_open,
		.answer_data = h_data,
		.answer_written = h_written,
		.answer_ioctl = h_ioctl,
		.answer_ioctl_fetch = h_fetch,
		.answer_err = h_err,
		.parked = nothing,
		.notify_poll = nothing,
		.drop_poll_handle = nothing,
		.tx_ready = h_tx_ready,
		.rx_room = h_rx_room,
		.tx_abort = h_tx_abort,
		.rx_stop = h_rx_stop,
		.last_close = h_last_close,
	};
	static const struct port_open_args open_args = { .uid = 0 };
	static uint8_t out[70000];
	const struct link_match match = { .any_palm = true };
	size_t written = 0;
	int conn, outq = 0;

	if (listener < 0)
		listen_once();
	memset(&fz, 0, sizeof(fz));
	if (loop_init(&fz.loop) < 0 || port_init(&fz.port, &cfg, &hooks) < 0)
		abort();
	port_open(&fz.port, &fz.req, &open_args);
	port_poll(&fz.port, fz.fh, NULL); /* it listens: IN requests go out */
	if (link_usbredir_start(&fz.link, &match, sock_path, &fz.loop, &fz.port) < 0)
		abort();
	conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (conn < 0)
		abort();
	for (int r = 0; r < ROUNDS_MAX; r++) {
		if (written < size) {
			ssize_t n = send(conn, data + written, size - written, MSG_NOSIGNAL);

			if (n > 0)
				written += (size_t)n;
		}
		/* a desktop keeps bytes queued, once a handheld is there */
		if (fz.port.carrier && port_tx_queued(&fz.port) < 4096) {
			memset(out, 'w', sizeof(out));
			port_write(&fz.port, &fz.req, fz.fh, out, 1 + (r * 7919) % sizeof(out),
				   true);
		}
		round_once();
		drain(conn);
		if (ioctl(conn, SIOCOUTQ, &outq) == 0 && outq == 0 && written == size && r > 4)
			break;
	}
	close(conn); /* the server goes: a departure */
	for (int r = 0; r < 4; r++)
		round_once();
	fz.link->ops->stop(fz.link);
	fz.link = NULL;
	port_shutdown(&fz.port);
	if (fz.have_file)
		port_release(&fz.port, fz.fh);
	port_free(&fz.port);
	loop_free(&fz.loop);
	return 0;
}
