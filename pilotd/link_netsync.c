// SPDX-License-Identifier: MIT
/*
 * The network HotSync transport: a handheld (a Wi-Fi Palm, or an
 * emulator such as CloudpilotEmu or POSE) calls pilotd on TCP, by default
 * port 14238, and its connection is presented on /dev/pilot as a handheld
 * docking: the connection is the arrival (carrier up), its end the
 * departure (hangup).  The NET stream it sends over TCP is what a
 * NetSync handheld sends over USB (core/netsync.h), so the bytes go
 * through unchanged and nothing here reads them.
 *
 * The pump (core/pump.h) drives the stream as for the USB transports; its
 * I/O calls become socket reads and writes here:
 *
 *   IN   an IN request is a recv() of up to NETSYNC_IN_SIZE bytes, made
 *        when the socket is readable.  The pump submits requests only
 *        while the port has room for them, so when /dev/pilot's reader is
 *        behind (or nobody listens) the socket is not read: its buffer
 *        fills and TCP's window closes on the peer.  A round reads at most
 *        the requests in flight: NETSYNC_READ_BUDGET bytes.
 *   OUT  a send() of what the pump took from txq, when the socket has
 *        room; what the kernel took leaves txq, the rest is sent again.
 *        txq's bound is the port's (TXQ_SIZE): writers park when it is full.
 *   halts, the close notification: nothing of USB on TCP; they complete.
 *
 * Calls only record; the socket is read and written, and what came back
 * reported to the pump, in settle(), after the loop's events (pump.h:
 * completions never come from inside a call).
 *
 * One session at a time.  A connection while one is docked is refused
 * at once (closed, and logged at most NETSYNC_LOG_BURST times per
 * NETSYNC_LOG_WINDOW_MS); so is a peer outside --netsync-allow, and a
 * call beyond NETSYNC_SESSIONS_BURST sessions in that window.  At most
 * NETSYNC_ACCEPTS_ROUND connections are taken from the kernel per round,
 * which holds NETSYNC_BACKLOG more at most (listen(2)); none is kept.
 * A docked session that neither sends nor is sent anything for
 * NETSYNC_IDLE_MS is dropped, and TCP keepalive finds a peer whose host
 * went away (tcp_opts.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/log.h"
#include "core/netsync.h"
#include "core/pump.h"
#include "link.h"
#include "tcp_opts.h"

#define NETSYNC_IN_SIZE	    PUMP_IN_SIZE_MAX		    /* one recv() per IN request */
#define NETSYNC_READ_BUDGET (PUMP_IN_MAX * NETSYNC_IN_SIZE) /* 32 KiB per round */
#define NETSYNC_OUT_MAX	    (64u * 1024)		    /* one send() at most */
/*
 * accept() failed for want of a file or memory (EMFILE, ENFILE, ENOBUFS):
 * the connection stays queued and the socket readable, so the listeners
 * rest this long instead of waking the loop every round with a log line.
 */
#define NETSYNC_ACCEPT_PAUSE_MS 1000u

struct net_link;

struct net_listener {
	struct watch w;
	struct net_link *l;
	char where[64];
};

struct net_link {
	struct link base;
	struct loop *loop;
	struct port *port;
	struct netsync_config cfg;
	struct net_listener listeners[NETSYNC_LISTEN_MAX];
	unsigned int nlisteners;

	/* the docked session */
	struct watch peer;
	uint32_t peer_events;
	bool docked;
	bool peer_closed;  /* it sent its last byte: what it sent is all in the socket */
	bool peer_watched; /* in the loop; not once it hung up (HUP and ERR cannot be masked) */
	char name[96];
	uint64_t last_ms; /* its last byte, either way */
	const char *drop; /* noted: settle() ends the session */
	char drop_buf[96];

	/* IN requests: slots waiting for bytes, in the order submitted */
	uint8_t in_fifo[PUMP_IN_MAX];
	unsigned int in_head, in_count;
	uint8_t *in_buf[PUMP_IN_MAX];
	size_t in_len[PUMP_IN_MAX];
	bool in_cancelled[PUMP_IN_MAX];
	unsigned int cancels; /* cancelled, not yet reported */

	/* the OUT transfer */
	const uint8_t *out_buf;
	size_t out_len;
	bool out_waiting, out_cancelled;
	bool ctrl_waiting;

	struct netsync_ratelimit refusals;
	unsigned long long refused;
	struct netsync_ratelimit accept_errors;
	bool accept_paused;
	uint64_t accept_resume_ms;
	uint64_t sessions_since_ms; /* NETSYNC_SESSIONS_BURST a window */
	unsigned int sessions;
	uint8_t out_mem[NETSYNC_OUT_MAX];
	struct pump pump;
};

static void note_drop(struct net_link *l, const char *why)
{
	if (!l->drop) {
		snprintf(l->drop_buf, sizeof(l->drop_buf), "%s", why);
		l->drop = l->drop_buf;
	}
}

/* ---- the pump's I/O (core/pump.h): recorded, done in settle() ---- */

static bool can_io(const struct net_link *l)
{
	return l->docked && !l->drop;
}

static int io_submit_in(void *ctx, int slot, uint8_t *buf, size_t len)
{
	struct net_link *l = ctx;

	if (!can_io(l))
		return -EAGAIN; /* the session is going */
	l->in_buf[slot] = buf;
	l->in_len[slot] = len;
	l->in_cancelled[slot] = false;
	l->in_fifo[(l->in_head + l->in_count++) % PUMP_IN_MAX] = (uint8_t)slot;
	return 0;
}

static int io_submit_out(void *ctx, const uint8_t *buf, size_t len)
{
	struct net_link *l = ctx;

	if (!can_io(l))
		return -EAGAIN;
	l->out_buf = buf;
	l->out_len = len;
	l->out_waiting = true;
	l->out_cancelled = false;
	return 0;
}

static void io_cancel_in(void *ctx, int slot)
{
	struct net_link *l = ctx;

	if (!l->in_cancelled[slot]) {
		l->in_cancelled[slot] = true;
		l->cancels++;
	}
}

static void io_cancel_out(void *ctx)
{
	struct net_link *l = ctx;

	if (l->out_waiting)
		l->out_cancelled = true;
}

/* No endpoint halts on TCP (the pump never asks: no transfer fails). */
static int io_clear_halt(void *ctx, bool in)
{
	return -EAGAIN;
}

/* Nothing to tell over TCP: the close is done (as a handheld that is told). */
static int io_close_notification(void *ctx)
{
	struct net_link *l = ctx;

	if (!can_io(l))
		return -EAGAIN;
	l->ctrl_waiting = true;
	return 0;
}

static const struct pump_io pump_io = {
	.submit_in = io_submit_in,
	.submit_out = io_submit_out,
	.cancel_in = io_cancel_in,
	.cancel_out = io_cancel_out,
	.clear_halt = io_clear_halt,
	.close_notification = io_close_notification,
};

/* ---- the session ---- */

/* What the socket is watched for: as the requests in flight say. */
static uint32_t peer_wants(const struct net_link *l)
{
	uint32_t ev = l->peer_closed ? 0 : EPOLLRDHUP;

	if (l->in_count > l->cancels)
		ev |= EPOLLIN;
	if (l->out_waiting && !l->out_cancelled)
		ev |= EPOLLOUT;
	return ev;
}

static void watch_peer(struct net_link *l)
{
	uint32_t ev = peer_wants(l);

	if (l->peer_watched && ev != l->peer_events && loop_mod(l->loop, &l->peer, ev) == 0)
		l->peer_events = ev;
}

/* The session ends: the departure.  Never inside a pump call. */
static void undock(struct net_link *l, const char *why)
{
	if (!l->docked)
		return;
	log_info("%s: %s; departed (%llu bytes in, %llu out)", l->name, why, l->pump.rx_bytes,
		 l->pump.tx_bytes);
	pump_stop(&l->pump);	    /* before the hooks below */
	port_carrier_down(l->port); /* also discards what it did not take */
	if (l->peer_watched)
		loop_del(l->loop, &l->peer);
	close(l->peer.fd);
	l->peer.fd = -1;
	l->docked = l->peer_closed = l->peer_watched = false;
	l->drop = NULL;
	l->in_head = l->in_count = l->cancels = 0;
	l->out_waiting = l->out_cancelled = l->ctrl_waiting = false;
}

/* Reads for the IN requests in order, each one recv(); the rest waits. */
static void read_peer(struct net_link *l)
{
	while (l->in_count > 0 && !l->drop) {
		int slot = l->in_fifo[l->in_head];
		ssize_t n;

		if (l->in_cancelled[slot])
			break; /* reported in settle(), in its turn */
		n = recv(l->peer.fd, l->in_buf[slot], l->in_len[slot], MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			note_drop(l, n == 0 ? "the peer closed the connection" : strerror(errno));
			break;
		}
		l->last_ms = loop_now_ms();
		l->in_head = (l->in_head + 1) % PUMP_IN_MAX;
		l->in_count--;
		pump_in_done(&l->pump, slot, PUMP_OK, l->in_buf[slot], (size_t)n);
	}
}

static void write_peer(struct net_link *l)
{
	ssize_t n;

	if (!l->out_waiting || l->out_cancelled || l->drop)
		return;
	n = send(l->peer.fd, l->out_buf, l->out_len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return; /* EPOLLOUT */
	if (n < 0) {
		note_drop(l, strerror(errno));
		return;
	}
	l->last_ms = loop_now_ms();
	l->out_waiting = false;
	pump_out_done(&l->pump, PUMP_OK, (size_t)n); /* the rest is sent again */
}

/* Cancelled IN requests at the head come back empty, in their turn. */
static void report_cancels(struct net_link *l)
{
	while (l->in_count > 0 && l->in_cancelled[l->in_fifo[l->in_head]]) {
		int slot = l->in_fifo[l->in_head];

		l->in_cancelled[slot] = false;
		l->cancels--;
		l->in_head = (l->in_head + 1) % PUMP_IN_MAX;
		l->in_count--;
		pump_in_done(&l->pump, slot, PUMP_CANCELLED, NULL, 0);
	}
}

/*
 * A cancelled request behind one still waiting is reported once those
 * ahead of it are: the pump hands bytes on in completion order, so they
 * must leave in the order they were asked for.  Those ahead of a cancel
 * are cancelled too whenever the pump cancels (it cancels all in flight).
 */
static bool work_due(const struct net_link *l)
{
	/* a port hook submitted since settle(): the socket's watch is behind */
	if (l->docked && l->peer_watched && peer_wants(l) != l->peer_events)
		return true;
	/* a peer that hung up is not watched: its bytes are read as asked */
	if (l->docked && !l->peer_watched && (l->in_count > l->cancels || l->out_waiting))
		return true;
	return l->drop || l->ctrl_waiting || (l->out_waiting && l->out_cancelled) ||
	       (l->in_count > 0 && l->in_cancelled[l->in_fifo[l->in_head]]) ||
	       pump_pending(&l->pump);
}

/* After the loop's events: report what came back, drive, read and write. */
static void settle(struct net_link *l)
{
	for (int round = 0; round < 4 && l->docked; round++) {
		if (l->drop)
			break;
		report_cancels(l);
		if (l->ctrl_waiting) {
			l->ctrl_waiting = false;
			pump_ctrl_done(&l->pump, PUMP_OK);
		}
		if (l->out_waiting && l->out_cancelled) {
			l->out_waiting = l->out_cancelled = false;
			pump_out_done(&l->pump, PUMP_CANCELLED, 0);
		}
		pump_drive(&l->pump, loop_now_ms());
		if (pump_verdict(&l->pump) != PUMP_FINE)
			note_drop(l, l->pump.why);
		write_peer(l);
		if (!l->peer_watched)
			read_peer(l);
		/* what it sent before it closed is read first; with no request
		 * to read it and no file listening, nobody ever will */
		if (l->peer_closed && l->in_count == l->cancels && !l->port->listening)
			note_drop(l, "the peer closed the connection");
		if (!work_due(l))
			break;
	}
	if (l->drop && l->pump.in_done_count) {
		/*
		 * What it sent before it went reaches the port first, and the
		 * departure waits for the next round: the port answers waiting
		 * reads after the round, and a hangup answers them with end of
		 * file, so the reader would see the end before the last bytes.
		 */
		pump_drive(&l->pump, loop_now_ms());
		return;
	}
	if (l->drop) {
		undock(l, l->drop);
		return;
	}
	if (l->docked)
		watch_peer(l);
}

static void peer_ready(void *ctx, uint32_t events)
{
	struct net_link *l = ctx;

	if (events & EPOLLIN)
		read_peer(l);
	/*
	 * The peer is done sending (a FIN, or a reset: the bytes before it
	 * are still read first).  They are read as /dev/pilot's reader takes
	 * them, and recv() says 0 or the reset after them: the departure.
	 */
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		l->peer_closed = true;
	if ((events & (EPOLLHUP | EPOLLERR)) && l->peer_watched) {
		loop_del(l->loop, &l->peer); /* else they would wake every round */
		l->peer_watched = false;
	}
	if (events & EPOLLOUT)
		write_peer(l);
}

/* ---- who calls ---- */

static void peer_address(const struct sockaddr_storage *ss, struct netsync_addr *a, uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		netsync_addr_v4(a, (const uint8_t *)&in->sin_addr);
		*port = ntohs(in->sin_port);
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		memcpy(a->b, &in6->sin6_addr, 16);
		*port = ntohs(in6->sin6_port);
	}
}

static void refuse(struct net_link *l, int fd, const char *peer, const char *why)
{
	unsigned int held_back;

	close(fd);
	l->refused++;
	if (netsync_ratelimit(&l->refusals, loop_now_ms(), &held_back)) {
		if (held_back)
			log_warn("network HotSync: %u more refusals not logged", held_back);
		log_warn("network HotSync: refused %s: %s", peer, why);
	}
}

static void dock(struct net_link *l, int fd, const char *peer)
{
	l->peer = (struct watch){ .fd = fd, .ready = peer_ready, .ctx = l };
	l->peer_events = EPOLLRDHUP;
	if (loop_add(l->loop, &l->peer, EPOLLRDHUP) < 0) {
		log_err("network HotSync: cannot watch %s's connection", peer);
		close(fd);
		l->peer.fd = -1;
		return;
	}
	tcp_set_options(fd);
	snprintf(l->name, sizeof(l->name), "network handheld %s", peer);
	l->docked = true;
	l->peer_closed = false;
	l->peer_watched = true;
	l->last_ms = loop_now_ms();
	log_info("%s arrived", l->name);
	/* the carrier goes up at the next drive, in settle() */
	pump_start(&l->pump, l->name, NULL, NETSYNC_IN_SIZE, NETSYNC_OUT_MAX);
}

/* One more session within this window? */
static bool session_due(struct net_link *l)
{
	uint64_t now = loop_now_ms();

	if (l->sessions == 0 || now - l->sessions_since_ms >= NETSYNC_LOG_WINDOW_MS) {
		l->sessions_since_ms = now;
		l->sessions = 0;
	}
	if (l->sessions >= NETSYNC_SESSIONS_BURST)
		return false;
	l->sessions++;
	return true;
}

static void take_call(struct net_link *l, int fd, const struct sockaddr_storage *ss)
{
	struct netsync_addr a;
	uint16_t port;
	char addr[INET6_ADDRSTRLEN], peer[INET6_ADDRSTRLEN + 8];

	peer_address(ss, &a, &port);
	netsync_addr_str(&a, addr, sizeof(addr));
	snprintf(peer, sizeof(peer), netsync_addr_is_v4(&a) ? "%s:%u" : "[%s]:%u", addr, port);
	if (!netsync_allowed(l->cfg.allow, l->cfg.nallow, &a))
		refuse(l, fd, peer, "not in --netsync-allow");
	else if (l->docked)
		refuse(l, fd, peer, "a handheld is docked already (one session at a time)");
	else if (!session_due(l))
		refuse(l, fd, peer, "too many sessions (5 per 10 s: NETSYNC_SESSIONS_BURST)");
	else
		dock(l, fd, peer);
}

/* The listeners rest NETSYNC_ACCEPT_PAUSE_MS; after_events() wakes them. */
static void pause_accepts(struct net_link *l, const struct net_listener *ln, int err)
{
	unsigned int held_back;

	if (netsync_ratelimit(&l->accept_errors, loop_now_ms(), &held_back)) {
		if (held_back)
			log_warn("network HotSync: %u more accept errors not logged", held_back);
		log_warn("network HotSync on %s: accept: %s; not accepting for %u ms", ln->where,
			 strerror(err), NETSYNC_ACCEPT_PAUSE_MS);
	}
	for (unsigned int i = 0; i < l->nlisteners; i++)
		loop_mod(l->loop, &l->listeners[i].w, 0);
	l->accept_paused = true;
	l->accept_resume_ms = loop_now_ms() + NETSYNC_ACCEPT_PAUSE_MS;
}

static void resume_accepts(struct net_link *l)
{
	if (!l->accept_paused || loop_now_ms() < l->accept_resume_ms)
		return;
	for (unsigned int i = 0; i < l->nlisteners; i++)
		loop_mod(l->loop, &l->listeners[i].w, EPOLLIN);
	l->accept_paused = false;
}

static void listener_ready(void *ctx, uint32_t events)
{
	struct net_listener *ln = ctx;
	struct net_link *l = ln->l;

	for (int i = 0; i < NETSYNC_ACCEPTS_ROUND; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int fd = accept4(ln->w.fd, (struct sockaddr *)&ss, &len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				pause_accepts(l, ln, errno);
			return;
		}
		take_call(l, fd, &ss);
	}
}

static int listen_on(struct net_link *l, const struct netsync_addr *a, bool v4, uint16_t port)
{
	struct net_listener *ln = &l->listeners[l->nlisteners];
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	char addr[INET6_ADDRSTRLEN];
	int one = 1, fd;

	netsync_addr_str(a, addr, sizeof(addr));
	if (v4) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		memcpy(&in->sin_addr, a->b + 12, 4);
		len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		memcpy(&in6->sin6_addr, a->b, 16);
		len = sizeof(*in6);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, NETSYNC_BACKLOG) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	/* the port the kernel chose, for a port 0 */
	port = ntohs(v4 ? ((struct sockaddr_in *)&ss)->sin_port
			: ((struct sockaddr_in6 *)&ss)->sin6_port);
	snprintf(ln->where, sizeof(ln->where), v4 ? "%s:%u" : "[%s]:%u", addr, port);
	ln->l = l;
	ln->w = (struct watch){ .fd = fd, .ready = listener_ready, .ctx = ln };
	if (loop_add(l->loop, &ln->w, EPOLLIN) < 0) {
		close(fd);
		return -ENOMEM;
	}
	l->nlisteners++;
	log_info("network HotSync: listening on %s", ln->where);
	return 0;
}

/* ---- the transport's ops ---- */

static int timeout_ms(struct link *base)
{
	struct net_link *l = (struct net_link *)base;
	uint64_t now = loop_now_ms(), at = UINT64_MAX;

	if (l->docked && work_due(l))
		return 0;
	if (l->docked)
		at = l->last_ms + l->cfg.idle_ms;
	if (l->accept_paused && l->accept_resume_ms < at)
		at = l->accept_resume_ms;
	if (netsync_ratelimit_due(&l->refusals) < at)
		at = netsync_ratelimit_due(&l->refusals);
	if (netsync_ratelimit_due(&l->accept_errors) < at)
		at = netsync_ratelimit_due(&l->accept_errors);
	if (at == UINT64_MAX)
		return -1;
	return at <= now ? 0 : (at - now > 60000 ? 60000 : (int)(at - now));
}

/* Refusals held back in a window no refusal came after: counted now. */
static void log_held_back(struct net_link *l)
{
	unsigned int n;

	if ((n = netsync_ratelimit_summary(&l->refusals, loop_now_ms())))
		log_warn("network HotSync: %u more refusals not logged", n);
	if ((n = netsync_ratelimit_summary(&l->accept_errors, loop_now_ms())))
		log_warn("network HotSync: %u more accept errors not logged", n);
}

static void after_events(struct link *base, bool timed_out)
{
	struct net_link *l = (struct net_link *)base;

	if (l->docked && !l->drop && netsync_idle(l->last_ms, loop_now_ms(), l->cfg.idle_ms)) {
		char why[64];

		snprintf(why, sizeof(why), "silent for %llu s",
			 (unsigned long long)(l->cfg.idle_ms / 1000));
		note_drop(l, why);
	}
	settle(l);
	resume_accepts(l);
	log_held_back(l);
}

static void stop(struct link *base)
{
	struct net_link *l = (struct net_link *)base;

	/* Give queued bytes up to PUMP_STOP_DRAIN_MS to reach the handheld. */
	for (int waited = 0;
	     waited < PUMP_STOP_DRAIN_MS && l->docked && !l->drop && port_tx_queued(l->port);
	     waited += 10) {
		settle(l);
		if (l->out_waiting)
			usleep(10000);
	}
	undock(l, "released: pilotd is stopping");
	for (unsigned int i = 0; i < l->nlisteners; i++) {
		loop_del(l->loop, &l->listeners[i].w);
		close(l->listeners[i].w.fd);
	}
	free(l);
}

static const struct link_ops netsync_ops = {
	.timeout_ms = timeout_ms,
	.after_events = after_events,
	.stop = stop,
};

int link_netsync_start(struct link **out, const struct netsync_config *cfg, struct loop *loop,
		       struct port *port)
{
	struct net_link *l = calloc(1, sizeof(*l));
	struct netsync_listen where;
	int r = 0;

	*out = l ? &l->base : NULL;
	if (!l)
		return -ENOMEM;
	l->base.ops = &netsync_ops;
	l->base.pump = &l->pump;
	l->loop = loop;
	l->port = port;
	l->cfg = *cfg;
	if (!l->cfg.idle_ms)
		l->cfg.idle_ms = NETSYNC_IDLE_MS;
	l->peer.fd = -1;
	pump_init(&l->pump, &pump_io, l, port, l->out_mem, sizeof(l->out_mem));
	if (netsync_parse_listen(cfg->listen, &where) < 0) {
		log_err("bad --netsync '%s': expected [ADDR:]PORT, ADDR a numeric IPv4 or "
			"[IPv6] address",
			cfg->listen);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < where.n; i++) {
		r = listen_on(l, &where.addr[i], where.v4[i], where.port);
		if (r < 0)
			log_warn("network HotSync: cannot listen on %s address %u of '%s': %s",
				 where.v4[i] ? "IPv4" : "IPv6", i + 1, cfg->listen, strerror(-r));
	}
	if (l->nlisteners == 0) {
		log_err("network HotSync: nowhere to listen ('%s')", cfg->listen);
		return r < 0 ? r : -EADDRNOTAVAIL;
	}
	return 0;
}
