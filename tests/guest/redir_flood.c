// SPDX-License-Identifier: MIT
/*
 * redir-flood: a usbredir server that floods pilotd --usbredir with small
 * packets, and /dev/pilot keeps answering meanwhile (issue 17 row 3: a
 * 2 MiB flood once stalled pilotd's loop for 13 s).  pilotd parses at most
 * 64 KiB of a server's bytes per loop round (docs/design.md "Bounds"), so
 * every CUSE request is still answered within the bound, and pilotd's
 * VmHWM stays under its bound (guestlib.h).
 *
 * It listens on 127.0.0.1:PORT, says hello as usbredirect would, then
 * sends BYTES of interface_info packets and control replies that nobody
 * asked for (pilotd ignores both), then device_disconnect.  Meanwhile a
 * thread opens /dev/pilot (O_NONBLOCK), asks TIOCMGET and closes it, over
 * and over, and the slowest round must stay under the bound.  pilotd's
 * VmRSS, VmHWM and Threads are printed before, during and after.
 *
 *   pilotd --usbredir 127.0.0.1:4001 &  redir-flood [--port 4001] [--bytes N]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <usbredirparser.h>

#include "guestlib.h"

#define FLOOD_BYTES   (2u << 20)
#define BATCH_BYTES   (64u * 1024) /* queued in the parser, then written */
#define ACCEPT_S      10.0	   /* pilotd calls again every 2 s at most */
#define ROUND_BOUND_S 2.0	   /* open, TIOCMGET, close while the flood runs */
#define HANGUP_S      60.0	   /* to parse the flood and hang up */

struct flood {
	int sock;
	struct usbredirparser *parser;
	bool hello;
	size_t sent;
};

static atomic_bool flooding = true;
static double slowest_round;
static int rounds;

static int on_read(void *priv, uint8_t *data, int count)
{
	struct flood *f = priv;
	ssize_t n = recv(f->sock, data, (size_t)count, MSG_DONTWAIT);

	if (n > 0)
		return (int)n;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return -1;
}

static int on_write(void *priv, uint8_t *data, int count)
{
	struct flood *f = priv;
	ssize_t n = send(f->sock, data, (size_t)count, MSG_NOSIGNAL);

	if (n < 0)
		return -1;
	f->sent += (size_t)n;
	return (int)n;
}

static void on_hello(void *priv, struct usb_redir_hello_header *hello)
{
	struct flood *f = priv;

	f->hello = true;
}

static void on_log(void *priv, int level, const char *msg)
{
	if (level <= usbredirparser_warning)
		note("usbredirparser: %s", msg);
}

static int accept_pilotd(int port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct timeval tv = { .tv_sec = (time_t)ACCEPT_S };
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0), s;

	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0 ||
	    setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		fail("listening on 127.0.0.1:%d: %s", port, strerror(errno));
	s = accept(ls, NULL, NULL);
	if (s < 0)
		fail("pilotd did not call 127.0.0.1:%d within %.0f s: %s", port, ACCEPT_S,
		     strerror(errno));
	close(ls);
	return s;
}

static void server_hello(struct flood *f)
{
	uint32_t caps[USB_REDIR_CAPS_SIZE] = { 0 };
	double end = now_s() + ACCEPT_S;

	f->parser = usbredirparser_create();
	if (!f->parser)
		fail("out of memory");
	f->parser->priv = f;
	f->parser->read_func = on_read;
	f->parser->write_func = on_write;
	f->parser->hello_func = on_hello;
	f->parser->log_func = on_log;
	usbredirparser_caps_set_cap(caps, usb_redir_cap_connect_device_version);
	usbredirparser_caps_set_cap(caps, usb_redir_cap_64bits_ids);
	usbredirparser_caps_set_cap(caps, usb_redir_cap_32bits_bulk_length);
	usbredirparser_init(f->parser, "redir-flood", caps, USB_REDIR_CAPS_SIZE,
			    usbredirparser_fl_usb_host);
	usbredirparser_do_write(f->parser);
	while (!f->hello) {
		if (now_s() > end)
			fail("no hello from pilotd within %.0f s", ACCEPT_S);
		if (usbredirparser_do_read(f->parser) == usbredirparser_read_io_error)
			fail("pilotd hung up before its hello");
		usleep(10000);
	}
}

/* Packets pilotd parses and ignores: interface_info, and control replies nobody asked for. */
static void queue_batch(struct flood *f, uint64_t *id)
{
	struct usb_redir_interface_info_header info = { .interface_count = 1 };
	struct usb_redir_control_packet_header reply = { .endpoint = 0x80 };
	size_t queued = 0;

	while (queued < BATCH_BYTES) {
		usbredirparser_send_interface_info(f->parser, &info);
		usbredirparser_send_control_packet(f->parser, (*id)++, &reply, NULL, 0);
		queued += sizeof(info) + sizeof(reply) + 2 * sizeof(struct usb_redir_header);
	}
}

static void wait_hangup(struct flood *f)
{
	double end = now_s() + HANGUP_S;

	while (usbredirparser_do_read(f->parser) != usbredirparser_read_io_error) {
		if (now_s() > end)
			fail("pilotd did not hang up within %.0f s of device_disconnect", HANGUP_S);
		usleep(10000);
	}
}

/* Open /dev/pilot, ask for the modem lines, close, until the flood ends. */
static void *answer_rounds(void *arg)
{
	while (atomic_load(&flooding)) {
		double t0 = now_s();
		int lines, fd = open(PILOT_DEV, O_RDWR | O_NOCTTY | O_NONBLOCK);

		if (fd < 0 || ioctl(fd, TIOCMGET, &lines) < 0)
			fail("during the flood: open/TIOCMGET: %s", strerror(errno));
		close(fd);
		if (now_s() - t0 > slowest_round)
			slowest_round = now_s() - t0;
		rounds++;
		usleep(20000);
	}
	return NULL;
}

static void report(pid_t pilotd, const char *when)
{
	note("%s: pilotd VmRSS %ld kB, VmHWM %ld kB, Threads %ld", when,
	     proc_status_kb(pilotd, "VmRSS"), proc_status_kb(pilotd, "VmHWM"),
	     proc_status_kb(pilotd, "Threads"));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct flood f = { .sock = -1 };
	size_t bytes = FLOOD_BYTES;
	uint64_t id = 1;
	pthread_t t;
	double t0;
	pid_t pilotd;
	int c, port = 4001;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': port = atoi(optarg); break;
		case 'b': bytes = strtoull(optarg, NULL, 0); break;
		case 'h':
			printf("usage: redir-flood [--port PORT] [--bytes N]\n"
			       "Be the usbredir server of pilotd --usbredir 127.0.0.1:PORT "
			       "(default\n"
			       "4001) and flood it with N bytes (default %u) of packets it "
			       "ignores,\n"
			       "while /dev/pilot must answer each open and TIOCMGET within %.0f "
			       "s.\n",
			       FLOOD_BYTES, ROUND_BOUND_S);
			return 0;
		default: return 2;
		}
	}
	guest_test_name("redir-flood");
	pilotd = find_pilotd();
	report(pilotd, "before");
	f.sock = accept_pilotd(port);
	server_hello(&f);
	if (pthread_create(&t, NULL, answer_rounds, NULL))
		fail("pthread_create");
	t0 = now_s();
	while (f.sent < bytes) {
		queue_batch(&f, &id);
		if (usbredirparser_do_write(f.parser) < 0)
			fail("pilotd hung up after %zu bytes of the flood", f.sent);
	}
	report(pilotd, "during");
	/* pilotd hangs up at device_disconnect: then it has parsed everything */
	usbredirparser_send_device_disconnect(f.parser);
	usbredirparser_do_write(f.parser);
	wait_hangup(&f);
	atomic_store(&flooding, false);
	pthread_join(t, NULL);
	note("%zu bytes of small packets in %.1f s; /dev/pilot answered %d rounds of open, "
	     "TIOCMGET and close meanwhile, the slowest in %.0f ms",
	     f.sent, now_s() - t0, rounds, slowest_round * 1000);
	sleep(1);
	report(pilotd, "after");
	usbredirparser_destroy(f.parser);
	close(f.sock);
	if (slowest_round > ROUND_BOUND_S)
		fail("a round took %.1f s while the flood ran (bound %.0f s)", slowest_round,
		     ROUND_BOUND_S);
	if (proc_status_kb(pilotd, "VmHWM") > pilotd_hwm_bound_kb(pilotd))
		fail("pilotd's VmHWM is above the bound %ld kB", pilotd_hwm_bound_kb(pilotd));
	return 0;
}
