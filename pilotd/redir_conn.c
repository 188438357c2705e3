// SPDX-License-Identifier: MIT
/*
 * The connection to a usbredir server; see redir_conn.h.  No call here
 * blocks: names are resolved once, at start (getaddrinfo blocks, and the
 * loop must not), connects are non-blocking, and the parser reads and
 * writes only what the socket has.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>
#include <usbredirparser.h>

#include "core/log.h"
#include "redir_conn.h"
#include "tcp_opts.h"

/* A server that falls silent is noticed as tcp_opts.h says.  No deadline
 * on bulk transfers instead: a handheld may rightly say nothing for minutes. */

/* ---- where the server is ---- */

static int unix_address(struct redir_conn *c, const char *path)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&c->addrs[0];

	if (strlen(path) >= sizeof(un->sun_path))
		return -ENAMETOOLONG;
	un->sun_family = AF_UNIX;
	strcpy(un->sun_path, path);
	c->addrlens[0] = sizeof(*un);
	c->naddrs = 1;
	return 0;
}

static int parse_server(struct redir_conn *c, const char *s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char host[256];
	const char *host_start = s, *end, *port;
	size_t hostlen;
	int r;

	if (strchr(s, '/'))
		return unix_address(c, s);
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
	for (struct addrinfo *ai = res; ai && c->naddrs < REDIR_ADDRS_MAX; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(c->addrs[0]))
			continue;
		memcpy(&c->addrs[c->naddrs], ai->ai_addr, ai->ai_addrlen);
		c->addrlens[c->naddrs++] = ai->ai_addrlen;
	}
	freeaddrinfo(res);
	return c->naddrs ? 0 : -EHOSTUNREACH;
}

int redir_conn_init(struct redir_conn *c, const char *server, struct loop *loop,
		    const struct redir_conn_ops *ops, void *ctx)
{
	*c = (struct redir_conn){
		.ops = ops,
		.ctx = ctx,
		.loop = loop,
		.server = server,
		.sock = { .fd = -1 },
		.backoff_ms = REDIR_BACKOFF_FIRST_MS,
	};
	return parse_server(c, server);
}

static bool is_tcp(const struct redir_conn *c)
{
	return c->addrs[c->addr].ss_family != AF_UNIX;
}

/* ---- the parser's socket side ---- */

/*
 * Follow the packet framing in what the server sends (a 12-byte header
 * for the hello, then 16 bytes when both ask for 64-bit ids, usbredirproto.h):
 * libusbredirparser allocates a packet's whole length (up to 128 MiB) as
 * soon as it has the header, so a header announcing more than any answer
 * pilotd can get must never reach it.  False: it announced too much.
 */
static bool frame_ok(struct redir_conn *c, const uint8_t *data, size_t n)
{
	while (n > 0) {
		size_t hlen, take;

		if (c->body_left > 0) {
			take = n < c->body_left ? n : (size_t)c->body_left;
			c->body_left -= take;
			data += take;
			n -= take;
			continue;
		}
		hlen = c->past_hello && usbredirparser_peer_has_cap(c->parser,
								    usb_redir_cap_64bits_ids)
			       ? 16
			       : 12;
		take = hlen - c->header_got < n ? hlen - c->header_got : n;
		memcpy(c->header + c->header_got, data, take);
		c->header_got += take;
		data += take;
		n -= take;
		if (c->header_got < hlen)
			break;
		c->body_left = (uint32_t)c->header[4] | (uint32_t)c->header[5] << 8 |
			       (uint32_t)c->header[6] << 16 | (uint32_t)c->header[7] << 24;
		c->header_got = 0;
		c->past_hello = true;
		if (c->body_left > REDIR_PACKET_MAX)
			return false;
	}
	return true;
}

int redir_conn_read(struct redir_conn *c, uint8_t *data, int count)
{
	size_t want = (size_t)count < c->read_budget ? (size_t)count : c->read_budget;
	ssize_t n;
	int one = 1;

	if (want == 0 || c->drop)
		return 0; /* this step's share is parsed, or we are leaving */
	n = recv(c->sock.fd, data, want, MSG_DONTWAIT);
	if (n > 0 && !frame_ok(c, data, (size_t)n)) {
		redir_conn_drop(c, "it announced a packet larger than any pilotd asks for");
		return 0; /* the parser never sees that header */
	}
	if (n > 0) {
		c->read_budget -= (size_t)n;
		c->last_rx_ms = loop_now_ms();
		/*
		 * Acknowledge at once: usbredirect leaves Nagle on, so each
		 * small reply of its waits for our ACK of the one before,
		 * which delayed ACKs hold back for up to 40 ms (tcp(7)).
		 * TCP_QUICKACK does not stick, so it is set after every read.
		 */
		if (is_tcp(c))
			setsockopt(c->sock.fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
		return (int)n;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	redir_conn_drop(c, n == 0 ? "the server closed the connection" : strerror(errno));
	return -1;
}

int redir_conn_write(struct redir_conn *c, uint8_t *data, int count)
{
	ssize_t n = send(c->sock.fd, data, (size_t)count, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n >= 0)
		return (int)n;
	if (errno == EAGAIN || errno == EINTR)
		return 0;
	redir_conn_drop(c, strerror(errno));
	return -1;
}

void redir_conn_hello(struct redir_conn *c, const char *version)
{
	c->state = REDIR_UP;
	c->deadline_ms = 0;
	c->failures = 0;
	log_info("usbredir server %s: connected (%.64s)", c->server, version);
}

/*
 * Not at the hello: a server that says hello and then nothing useful
 * (a device_disconnect with no device, say) would be called every 0.1 s.
 * The stream's start; close_connection() judges how long it ran.
 */
void redir_conn_useful(struct redir_conn *c)
{
	c->useful_ms = loop_now_ms();
}

void redir_conn_drop(struct redir_conn *c, const char *why)
{
	if (!c->drop) {
		snprintf(c->drop_buf, sizeof(c->drop_buf), "%s", why);
		c->drop = c->drop_buf;
	}
}

void redir_conn_departed(struct redir_conn *c)
{
	c->call_soon = true;
	redir_conn_drop(c, "left the bus");
}

/* ---- the connection ---- */

static void watch_socket(struct redir_conn *c, uint32_t events)
{
	if (events != c->sock_events && loop_mod(c->loop, &c->sock, events) == 0)
		c->sock_events = events;
}

/* The owner forgets what was on the connection, then the parser and socket go. */
static void tear_down(struct redir_conn *c, const char *why)
{
	c->ops->lost(c->ctx, why);
	if (c->parser)
		usbredirparser_destroy(c->parser);
	c->parser = NULL;
	if (c->sock.fd >= 0) {
		loop_del(c->loop, &c->sock);
		close(c->sock.fd);
	}
	c->sock.fd = -1;
}

/* Only from the top of the loop: never inside a parser callback. */
static void close_connection(struct redir_conn *c, const char *why)
{
	bool was_up = c->state == REDIR_UP;
	/*
	 * Only a handheld whose stream ran a while resets the pause or has
	 * the next called at once: a server can set one up and end it at
	 * once, on every call (attacker round 6, R6-2).
	 */
	bool ran = c->useful_ms && loop_now_ms() - c->useful_ms >= REDIR_RUN_MIN_MS;

	c->useful_ms = 0;
	if (ran)
		c->backoff_ms = REDIR_BACKOFF_FIRST_MS;
	else
		c->call_soon = false;
	tear_down(c, why);
	c->drop = NULL;
	c->queued = false;
	c->header_got = 0;
	c->body_left = 0;
	c->past_hello = false;
	c->deadline_ms = 0;
	c->state = REDIR_WAITING;
	/* A departure is not a failure: the next handheld is called at once. */
	if (c->call_soon) {
		c->call_soon = false;
		c->retry_at_ms = loop_now_ms() + REDIR_BACKOFF_FIRST_MS;
		log_info("usbredir server %s: disconnected after the handheld left; calling "
			 "again for the next",
			 c->server);
		return;
	}
	/* every address in turn; the pause grows once all have failed */
	if (!was_up && c->addr_next != c->addr_first) {
		c->retry_at_ms = loop_now_ms();
		log_debug("usbredir server %s: %s; trying its next address", c->server, why);
		return;
	}
	/* one line for each outage, not for each attempt */
	if (was_up || c->failures++ == 0)
		log_info("usbredir server %s: %s; calling again every %.1f s at most", c->server,
			 why, REDIR_BACKOFF_MAX_MS / 1000.0);
	else
		log_debug("usbredir server %s: %s", c->server, why);
	if (was_up)
		c->failures = 1;
	c->addr_first = c->addr_next;
	c->retry_at_ms = loop_now_ms() + c->backoff_ms;
	c->backoff_ms = c->backoff_ms * 2 > REDIR_BACKOFF_MAX_MS ? REDIR_BACKOFF_MAX_MS
								  : c->backoff_ms * 2;
}

static void connected(struct redir_conn *c)
{
	if (is_tcp(c))
		tcp_set_options(c->sock.fd);
	c->parser = c->ops->new_parser(c->ctx);
	if (!c->parser) {
		close_connection(c, "out of memory");
		return;
	}
	c->state = REDIR_HELLO;
	c->parser_warnings = 0;
	/* this address answers: call it first next time */
	c->addr_next = c->addr_first = c->addr;
	c->deadline_ms = loop_now_ms() + REDIR_CONNECT_TIMEOUT_MS;
	log_debug("usbredir server %s: connected, waiting for its hello", c->server);
	redir_conn_settle(c);
}

/*
 * Send what is queued (EPOLLOUT while some waits), or end the connection
 * if a callback said so.  A server that does not take what we send is
 * dropped once that passes REDIR_WRITE_QUEUE_MAX, before the queue can
 * grow without bound.
 */
void redir_conn_settle(struct redir_conn *c)
{
	c->queued = false;
	if (c->parser && !c->drop && usbredirparser_has_data_to_write(c->parser))
		usbredirparser_do_write(c->parser);
	if (c->parser && !c->drop &&
	    usbredirparser_get_bufferered_output_size(c->parser) > REDIR_WRITE_QUEUE_MAX)
		redir_conn_drop(c, "it does not read what pilotd sends");
	if (c->drop) {
		close_connection(c, c->drop);
		return;
	}
	if (c->parser)
		watch_socket(
			c, EPOLLIN | (usbredirparser_has_data_to_write(c->parser) ? EPOLLOUT : 0));
}

/*
 * Parse at most REDIR_READ_BUDGET bytes, in steps with the answers
 * written out between them (libusbredirparser appends to its write
 * queue by walking it: a long queue costs quadratic time).
 */
static void read_server(struct redir_conn *c)
{
	for (size_t done = 0; done < REDIR_READ_BUDGET && c->parser && !c->drop;
	     done += REDIR_READ_CHUNK) {
		int r;

		c->read_budget = REDIR_READ_CHUNK;
		r = usbredirparser_do_read(c->parser);
		if (r == usbredirparser_read_parse_error)
			redir_conn_drop(c, "it broke the usbredir protocol");
		else if (r < 0)
			redir_conn_drop(c, "the connection failed");
		if (c->read_budget > 0)
			break; /* the socket is empty */
		redir_conn_settle(c);
	}
	c->read_budget = 0;
}

static void sock_ready(void *ctx, uint32_t events)
{
	struct redir_conn *c = ctx;

	if (c->state == REDIR_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(c->sock.fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err)
			close_connection(c, strerror(err));
		else
			connected(c);
		return;
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		read_server(c);
	if (!c->parser)
		return;
	if (!c->drop)
		c->ops->parsed(c->ctx);
	redir_conn_settle(c);
}

void redir_conn_call(struct redir_conn *c)
{
	int fd;

	c->addr = c->addr_next;
	c->addr_next = (c->addr_next + 1) % c->naddrs;
	fd = socket(c->addrs[c->addr].ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		/* a sandbox (RestrictAddressFamilies=) says EAFNOSUPPORT */
		close_connection(c, errno == EAFNOSUPPORT
					    ? "this address family is not allowed here"
					    : strerror(errno));
		return;
	}
	c->sock = (struct watch){ .fd = fd, .ready = sock_ready, .ctx = c };
	c->sock_events = EPOLLOUT;
	if (loop_add(c->loop, &c->sock, EPOLLOUT) < 0) {
		close(fd);
		c->sock.fd = -1;
		close_connection(c, "cannot watch the socket");
		return;
	}
	c->state = REDIR_CONNECTING;
	c->deadline_ms = loop_now_ms() + REDIR_CONNECT_TIMEOUT_MS;
	if (connect(fd, (struct sockaddr *)&c->addrs[c->addr], c->addrlens[c->addr]) == 0)
		connected(c);
	else if (errno != EINPROGRESS)
		close_connection(c, strerror(errno));
}

int redir_conn_timeout_ms(const struct redir_conn *c)
{
	uint64_t at = c->state == REDIR_WAITING ? c->retry_at_ms : c->deadline_ms;
	uint64_t now = loop_now_ms();

	if (c->drop || c->queued)
		return 0; /* noted by the port's hooks at the end of the round */
	if (at == 0)
		return -1;
	return at <= now ? 0 : (int)(at - now);
}

void redir_conn_after_events(struct redir_conn *c)
{
	uint64_t now = loop_now_ms();

	if (c->state == REDIR_WAITING) {
		if (now >= c->retry_at_ms)
			redir_conn_call(c);
		return;
	}
	if (c->deadline_ms && now >= c->deadline_ms)
		redir_conn_drop(c, c->state == REDIR_CONNECTING ? "no answer"
							       : "no hello from the server");
	if (c->state != REDIR_CONNECTING)
		redir_conn_settle(c);
	else if (c->drop)
		close_connection(c, c->drop);
}

void redir_conn_drain(struct redir_conn *c, int ms, bool (*done)(void *ctx))
{
	for (int waited = 0; waited < ms && c->parser && !done(c->ctx); waited += 100) {
		struct pollfd pfd = {
			.fd = c->sock.fd,
			.events = POLLIN |
				  (usbredirparser_has_data_to_write(c->parser) ? POLLOUT : 0),
		};

		if (poll(&pfd, 1, 100) > 0)
			sock_ready(c, pfd.revents & (POLLIN | POLLHUP | POLLERR) ? EPOLLIN : 0);
	}
}

void redir_conn_close(struct redir_conn *c, const char *why)
{
	if (c->parser && !c->drop && usbredirparser_has_data_to_write(c->parser))
		usbredirparser_do_write(c->parser);
	tear_down(c, why);
}
