// SPDX-License-Identifier: MIT
/*
 * redir-client: pilotd's usbredir transport (pilotd/link_usbredir.c) and
 * its port, driven on the host without CUSE, for tests that need no
 * guest: what a desktop does through /dev/pilot is done here by calling
 * the port directly, with a front that records the answers.
 *
 *   redir-client --usbredir SERVER [--echo BYTES] [--seconds N] [--txq BYTES]
 *                [--max-stall-ms N]
 *   redir-client --netsync [ADDR:]PORT [--allow ADDR[/PREFIX]]... [--idle-ms N] ...
 *
 * With --netsync it is the network HotSync transport (pilotd/link_netsync.c)
 * instead, listening there (port 0: the kernel picks; the log line
 * "network HotSync: listening on ADDR:PORT" says which), with pilotd's
 * idle timeout unless --idle-ms sets another.  --skip-sessions N: the
 * first N sessions (a hostile peer's) are only read, and what they send
 * is counted apart (skipped=); the echo starts with the next.
 *
 * --pty (pty_bridge.h): no echo; it prints "pty PATH", a pseudo-terminal
 * a desktop program opens instead of /dev/pilot: the port's bytes go to
 * it while it is open, what the desktop writes goes to the handheld while
 * one is docked (else nowhere, as with no handheld on /dev/pilot).  After
 * the first departure, once the desktop has closed the pty, it exits 0.
 *
 * Keeps one file open and a read parked on it, reopening after each
 * hangup, as a desktop that waits for the next HotSync does.  With
 * --echo, once a handheld is attached it writes BYTES of the test
 * pattern and exits 0 as soon as they have come back byte for byte
 * (palm-sim in echo mode), 1 if they have not within N seconds (default
 * 60).  Without --echo it runs until N seconds pass or SIGTERM, then
 * exits 0.  It prints what it saw: carrier changes and hangups as they
 * happen ("carrier on", "carrier off", "hangup N"), then a summary.
 *
 * For the attack tests (tests/link/redir_attacks.py): --txq sets the
 * port's transmit queue (default 512 KiB), so that a small one makes
 * writes park; --max-stall-ms watches the event loop with a 10 ms
 * periodic timer, and the most CPU time the loop's thread spent between
 * two of its ticks is the longest stall: the time one round's work kept
 * the loop from its timers.  Not the timer's lateness on the clock, which
 * a loaded machine stretches by whatever time it gives other processes
 * (983 ms once, under a load of 18 on 2 cores).  It prints "longest
 * stall: N ms" (and the lateness, "longest late: N ms", for
 * information) at the end, and fails the run when the stall is above N.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "pty_bridge.h"
#include "raw_termios.h"
#include "../../fixtures/lib/testpattern.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/port.h"
#include "link.h"

/* The requests this client has in flight: the open, one read, one write. */
struct client {
	struct port port;
	struct loop loop;
	struct link *link;
	int req_open, req_read, req_write; /* addresses are the request ids */
	bool open_waiting, read_waiting, write_waiting;
	bool have_file, hung_up;
	uint64_t fh;
	unsigned long long hangups, opens;

	size_t read_size; /* of each read: 4 KiB; 64 KiB with --netsync (below) */
	size_t echo_len, written, received;
	unsigned long long skip_sessions, skipped;
	uint8_t *sent, *got;
	bool mismatch;

	struct pty_bridge pty; /* --pty: its master >= 0 */
	bool desktop_seen;

	struct watch tick; /* --max-stall-ms: every TICK_MS */
	uint64_t tick_last_ms, tick_last_cpu_ms, longest_stall_ms, longest_late_ms;
};

#define TICK_MS 10

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int answer_open(void *ctx, void *req, uint64_t fh)
{
	struct client *c = ctx;

	c->open_waiting = false;
	c->have_file = true;
	c->fh = fh;
	c->opens++;
	return 0;
}

static void answer_data(void *ctx, void *req, const void *buf, size_t len)
{
	struct client *c = ctx;

	c->read_waiting = false;
	if (len == 0) { /* end of file: the handheld left */
		c->hung_up = true;
		return;
	}
	if (c->hangups < c->skip_sessions) {
		c->skipped += len;
		return;
	}
	if (c->pty.master >= 0)
		pty_bridge_to_desktop(&c->pty, buf, len);
	if (c->echo_len && c->received + len <= c->echo_len)
		memcpy(c->got + c->received, buf, len);
	else if (c->echo_len)
		c->mismatch = true; /* more than was sent */
	c->received += len;
}

static void answer_written(void *ctx, void *req, size_t len)
{
	struct client *c = ctx;

	c->write_waiting = false;
	c->written += len;
	c->pty.from_desktop_off += len;
}

static void answer_err(void *ctx, void *req, int err)
{
	struct client *c = ctx;

	if (req == &c->req_open)
		c->open_waiting = false;
	if (req == &c->req_read)
		c->read_waiting = false;
	if (req == &c->req_write)
		c->write_waiting = false;
	if (err == EIO && c->have_file) /* hung up */
		c->hung_up = true;
}

static void answer_ioctl(void *ctx, void *req, const void *out, size_t len)
{
}

static void answer_ioctl_fetch(void *ctx, void *req, uintptr_t arg, size_t in, size_t out)
{
}

static void nothing(void *ctx, void *p)
{
}

static void tx_ready(void *ctx)
{
	struct client *c = ctx;

	if (c->link)
		link_tx_ready(c->link);
}

static void rx_room(void *ctx)
{
	struct client *c = ctx;

	if (c->link)
		link_rx_room(c->link);
}

static void tx_abort(void *ctx)
{
	struct client *c = ctx;

	if (c->link)
		link_tx_abort(c->link);
}

static void rx_stop(void *ctx)
{
	struct client *c = ctx;

	if (c->link)
		link_rx_stop(c->link);
}

static void last_close(void *ctx)
{
	struct client *c = ctx;

	if (c->link)
		link_last_close(c->link);
}

/* --pty: the desktop on the pty's other side reads and writes. */
static void act_pty(struct client *c)
{
	const struct port_open_args open_args = { .uid = 0 };
	struct pty_bridge *b = &c->pty;
	bool there = pty_bridge_desktop_there(b);
	size_t n;

	c->desktop_seen |= there;
	pty_bridge_flush(b);
	if (c->hung_up && !c->read_waiting && !c->write_waiting && c->hangups == 0) {
		c->hangups++;
		printf("hangup %llu\n", c->hangups);
	}
	if (!c->have_file && !c->open_waiting) {
		c->open_waiting = true;
		port_open(&c->port, &c->req_open, &open_args);
	}
	/* as /dev/pilot: nothing is read from the handheld while nobody listens */
	if (c->have_file && !c->hung_up && !c->read_waiting && there && b->to_desktop_len == 0) {
		c->read_waiting = true;
		port_read(&c->port, &c->req_read, c->fh, sizeof(b->to_desktop), false,
			  loop_now_ms());
	}
	while (c->have_file && !c->hung_up && !c->write_waiting && (n = pty_bridge_from_desktop(b))) {
		if (!c->port.carrier) {
			b->from_desktop_off = b->from_desktop_len; /* no handheld: nowhere */
			continue;
		}
		c->write_waiting = true;
		port_write(&c->port, &c->req_write, c->fh, b->from_desktop + b->from_desktop_off, n,
			   false);
	}
}

static bool pty_done(struct client *c)
{
	return c->pty.master >= 0 && c->hangups > 0 && c->desktop_seen &&
	       c->pty.to_desktop_len == 0 && !pty_bridge_desktop_there(&c->pty);
}

/* What a desktop does next: open, keep a read parked, write the pattern. */
static void act(struct client *c)
{
	const struct port_open_args open_args = { .uid = 0 };

	if (c->hung_up && !c->read_waiting && !c->write_waiting) {
		c->hung_up = false;
		c->hangups++;
		printf("hangup %llu\n", c->hangups);
		port_release(&c->port, c->fh); /* and open again, below */
		c->have_file = false;
		c->written = c->received = 0; /* a new session starts over */
		c->mismatch = false;
	}
	if (!c->have_file && !c->open_waiting) {
		c->open_waiting = true;
		port_open(&c->port, &c->req_open, &open_args);
	}
	if (c->have_file && !c->hung_up && !c->read_waiting) {
		c->read_waiting = true;
		port_read(&c->port, &c->req_read, c->fh, c->read_size, false, loop_now_ms());
	}
	/* as fast as the port takes them: until one is parked */
	while (c->have_file && !c->hung_up && c->port.carrier && !c->write_waiting &&
	       c->hangups >= c->skip_sessions && c->written < c->echo_len) {
		size_t n = c->echo_len - c->written > 1000 ? 1000 : c->echo_len - c->written;

		c->write_waiting = true;
		port_write(&c->port, &c->req_write, c->fh, c->sent + c->written, n, false);
	}
}

static bool echo_done(const struct client *c)
{
	return c->echo_len && c->received >= c->echo_len;
}

/* CPU time of the loop's thread, in ms. */
static uint64_t loop_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* How long the loop worked without coming back to its timer (CPU time),
 * and how late the timer ran (the clock's time). */
static void tick(void *ctx, uint32_t events)
{
	struct client *c = ctx;
	uint64_t expirations, now = loop_now_ms(), cpu = loop_cpu_ms();
	uint64_t due = c->tick_last_ms + TICK_MS;

	if (read(c->tick.fd, &expirations, sizeof(expirations)) < 0)
		return;
	if (cpu - c->tick_last_cpu_ms > c->longest_stall_ms)
		c->longest_stall_ms = cpu - c->tick_last_cpu_ms;
	if (now > due && now - due > c->longest_late_ms)
		c->longest_late_ms = now - due;
	c->tick_last_ms = now;
	c->tick_last_cpu_ms = cpu;
}

static int watch_stalls(struct client *c)
{
	const struct itimerspec every = {
		.it_interval = { .tv_nsec = TICK_MS * 1000000L },
		.it_value = { .tv_nsec = TICK_MS * 1000000L },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd < 0)
		return -1;
	c->tick = (struct watch){ .fd = fd, .ready = tick, .ctx = c };
	c->tick_last_ms = loop_now_ms();
	c->tick_last_cpu_ms = loop_cpu_ms();
	if (timerfd_settime(fd, 0, &every, NULL) < 0 || loop_add(&c->loop, &c->tick, EPOLLIN) < 0) {
		close(fd);
		c->tick.fd = -1;
		return -1;
	}
	return 0;
}

static int setup(struct client *c, const char *server, const struct netsync_config *ns,
		 size_t txq_size)
{
	const struct port_config cfg = { .rxq_size = 256 * 1024,
					 .txq_size = txq_size,
					 .read_max = 128 * 1024,
					 .files_max = PORT_FILES_MAX,
					 .parked_max = PORT_PARKED_MAX,
					 .parked_write_bytes = PORT_PARKED_WRITE_BYTES,
					 .closing_wait_ms = PORT_CLOSING_WAIT_MS };
	const struct port_hooks hooks = {
		.ctx = c,
		.answer_open = answer_open,
		.answer_data = answer_data,
		.answer_written = answer_written,
		.answer_ioctl = answer_ioctl,
		.answer_ioctl_fetch = answer_ioctl_fetch,
		.answer_err = answer_err,
		.parked = nothing,
		.notify_poll = nothing,
		.drop_poll_handle = nothing,
		.tx_ready = tx_ready,
		.rx_room = rx_room,
		.tx_abort = tx_abort,
		.rx_stop = rx_stop,
		.last_close = last_close,
	};
	const struct link_match match = { .any_palm = true };

	if (loop_init(&c->loop) < 0 || port_init(&c->port, &cfg, &hooks) < 0)
		return -1;
	make_raw_termios(&c->port.tty.termios); /* as a desktop sets it first */
	if (ns->listen)
		return link_netsync_start(&c->link, ns, &c->loop, &c->port);
	return link_usbredir_start(&c->link, &match, server, &c->loop, &c->port);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: redir-client --usbredir SERVER | --netsync [ADDR:]PORT\n"
		   "                    [--allow ADDR[/PREFIX]]... [--idle-ms N]\n"
		   "                    [--skip-sessions N] [--pty]\n"
		   "                    [--echo BYTES] [--seconds N]\n"
		   "                    [--txq BYTES] [--max-stall-ms N] [--verbose]\n"
		   "Drive pilotd's usbredir transport and port without CUSE (see the\n"
		   "header of tests/link/redir_client.c).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "usbredir", required_argument, NULL, 'r' },
		{ "netsync", required_argument, NULL, 'N' },
		{ "allow", required_argument, NULL, 'A' },
		{ "idle-ms", required_argument, NULL, 'I' },
		{ "skip-sessions", required_argument, NULL, 'S' },
		{ "pty", no_argument, NULL, 'P' },
		{ "echo", required_argument, NULL, 'e' },
		{ "seconds", required_argument, NULL, 's' },
		{ "txq", required_argument, NULL, 't' },
		{ "max-stall-ms", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct client c = { .pty.master = -1 };
	struct netsync_config ns = { 0 };
	const char *server = NULL;
	uint64_t end_ms;
	long seconds = 60, max_stall_ms = -1;
	size_t txq_size = 512 * 1024;
	bool carrier = false;
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "r:N:A:I:S:Pe:s:t:m:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'r': server = optarg; break;
		case 'N': ns.listen = optarg; break;
		case 'A':
			if (ns.nallow == NETSYNC_ALLOW_MAX ||
			    netsync_parse_net(optarg, &ns.allow[ns.nallow++]) < 0) {
				usage(stderr);
				return 2;
			}
			break;
		case 'I': ns.idle_ms = strtoull(optarg, NULL, 0); break;
		case 'S': c.skip_sessions = strtoull(optarg, NULL, 0); break;
		case 'P': c.pty.master = 0; break; /* opened below */
		case 'e': c.echo_len = strtoul(optarg, NULL, 0); break;
		case 's': seconds = strtol(optarg, NULL, 0); break;
		case 't': txq_size = strtoul(optarg, NULL, 0); break;
		case 'm': max_stall_ms = strtol(optarg, NULL, 0); break;
		case 'v': pilotd_verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!server == !ns.listen || seconds <= 0 || txq_size == 0) {
		usage(stderr);
		return 2;
	}
	/*
	 * Over loopback (MSS 64 KiB), Linux announces a reopened receive window
	 * only once 64 KiB of it are free (__tcp_select_window()): a reader
	 * that frees 4 KiB a round waits for the peer's zero-window probes,
	 * which back off (3 MB echoed in 7 s instead of 0.6 s).  A desktop on
	 * /dev/pilot reads what a message holds; this one reads 64 KiB.
	 */
	c.read_size = ns.listen ? 65536 : 4096;
	c.sent = malloc(c.echo_len + 1);
	c.got = malloc(c.echo_len + 1);
	if (c.sent && c.echo_len) {
		struct testpattern tp;

		testpattern_init(&tp, 42);
		testpattern_fill(&tp, c.sent, c.echo_len);
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0); /* each event as it happens */
	c.tick.fd = -1;
	if (c.pty.master == 0) {
		if (pty_bridge_open(&c.pty) < 0) {
			fprintf(stderr, "redir-client: cannot make a pty: %s\n", strerror(errno));
			return 1;
		}
		printf("pty %s\n", c.pty.path);
	}
	if (!c.sent || !c.got || setup(&c, server, &ns, txq_size) < 0 ||
	    (max_stall_ms >= 0 && watch_stalls(&c) < 0)) {
		fprintf(stderr, "redir-client: cannot start\n");
		return 1;
	}
	end_ms = loop_now_ms() + (uint64_t)seconds * 1000;
	while (!stop && loop_now_ms() < end_ms && !echo_done(&c) && !c.mismatch && !pty_done(&c)) {
		int t = c.link->ops->timeout_ms(c.link), most = c.pty.master >= 0 ? 5 : 100;
		int n = loop_run_once(&c.loop, t < 0 || t > most ? most : t);

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "redir-client: epoll: %s\n", strerror(-n));
			rc = 1;
			break;
		}
		c.link->ops->after_events(c.link, n == 0);
		port_after_events(&c.port, loop_now_ms());
		if (c.port.carrier != carrier) {
			carrier = c.port.carrier;
			printf("carrier %s\n", carrier ? "on" : "off");
		}
		if (c.pty.master >= 0)
			act_pty(&c);
		else
			act(&c);
	}
	if (c.echo_len &&
	    (!echo_done(&c) || c.mismatch || memcmp(c.sent, c.got, c.echo_len) != 0)) {
		fprintf(stderr, "redir-client: %zu of %zu bytes came back%s\n", c.received,
			c.echo_len, c.mismatch || echo_done(&c) ? ", not as sent" : "");
		rc = 1;
	}
	if (max_stall_ms >= 0) {
		printf("longest stall: %llu ms\nlongest late: %llu ms\n",
		       (unsigned long long)c.longest_stall_ms, (unsigned long long)c.longest_late_ms);
		if (c.longest_stall_ms > (uint64_t)max_stall_ms) {
			fprintf(stderr, "redir-client: the loop stalled %llu ms, above %ld ms\n",
				(unsigned long long)c.longest_stall_ms, max_stall_ms);
			rc = 1;
		}
	}
	printf("carrier_changes=%llu hangups=%llu opens=%llu written=%zu received=%zu "
	       "skipped=%llu\n",
	       (unsigned long long)c.port.carrier_changes, c.hangups, c.opens, c.written,
	       c.received, c.skipped);
	if (c.pty.master >= 0 && !pty_done(&c)) {
		fprintf(stderr, "redir-client: the pty's session did not end within %ld s\n", seconds);
		rc = 1;
	}
	pty_bridge_close(&c.pty);
	if (c.have_file)
		port_release(&c.port, c.fh);
	port_shutdown(&c.port);
	c.link->ops->stop(c.link);
	port_free(&c.port);
	if (c.tick.fd >= 0)
		close(c.tick.fd);
	loop_free(&c.loop);
	free(c.sent);
	free(c.got);
	return rc;
}
