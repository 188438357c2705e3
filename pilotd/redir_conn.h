/* SPDX-License-Identifier: MIT */
/*
 * The connection to a usbredir server, for link_usbredir.c: where the
 * server is (every resolved address in turn), calling it without
 * blocking, TCP keepalive, calling again with a growing pause, and the
 * socket side of libusbredirparser (its read and write callbacks, the
 * read budget per loop round, the cap on the queue towards the server).
 * What the packets mean is link_usbredir.c's.
 *
 * Teardown: redir_conn_drop() only notes why the connection must end;
 * redir_conn_settle(), at the top of the loop, closes it (after the
 * owner's lost() has forgotten what was on it) and destroys the parser.
 */
#ifndef PILOTD_REDIR_CONN_H
#define PILOTD_REDIR_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/loop.h"

#define REDIR_ADDRS_MAX	       8	     /* resolved addresses tried in turn */
#define REDIR_READ_CHUNK       4096u	     /* parsed, then its answers written out */
#define REDIR_READ_BUDGET      (64u * 1024) /* parsed per loop round at most */
#define REDIR_WRITE_QUEUE_MAX  (128u * 1024) /* towards the server, unread by it */
/* No packet pilotd asks for is larger: its largest is a 64 KiB OUT packet's
 * answer, which carries no data back, or a 1 KiB IN packet. */
#define REDIR_PACKET_MAX       (64u * 1024 + 1024)
#define REDIR_CONNECT_TIMEOUT_MS 5000	     /* TCP connect, then the server's hello */
#define REDIR_BACKOFF_FIRST_MS 100
#define REDIR_BACKOFF_MAX_MS   2000
/* a handheld that ran this long left as one does: the next is called at once */
#define REDIR_RUN_MIN_MS       REDIR_BACKOFF_MAX_MS

struct usbredirparser;

/* What the connection asks of its owner. */
struct redir_conn_ops {
	/* A parser for a new connection, its callbacks set; NULL: no memory. */
	struct usbredirparser *(*new_parser)(void *ctx);
	/* The connection ends: forget what was on it (the parser still exists). */
	void (*lost)(void *ctx, const char *why);
	/* A round of the server's packets was parsed: queue what may go now. */
	void (*parsed)(void *ctx);
};

enum redir_conn_state {
	REDIR_WAITING,	  /* until retry_at_ms */
	REDIR_CONNECTING, /* a non-blocking connect in progress */
	REDIR_HELLO,	  /* connected; the server has not said hello */
	REDIR_UP,
};

struct redir_conn {
	const struct redir_conn_ops *ops;
	void *ctx;
	struct loop *loop;
	const char *server; /* as given, for the log */
	struct sockaddr_storage addrs[REDIR_ADDRS_MAX];
	socklen_t addrlens[REDIR_ADDRS_MAX];
	unsigned int naddrs, addr_next; /* the one to call next */
	unsigned int addr_first;	/* where this round of calls began */
	unsigned int addr;		/* the one called */

	enum redir_conn_state state;
	struct watch sock;
	uint32_t sock_events;
	struct usbredirparser *parser;
	uint64_t deadline_ms; /* of connecting or the hello */
	uint64_t retry_at_ms;
	unsigned int backoff_ms;
	uint64_t useful_ms; /* when its handheld's stream began, or 0 */
	unsigned int failures; /* calls failed in a row */
	const char *drop;      /* noted: settle() ends the connection */
	char drop_buf[96];
	bool call_soon;	    /* the handheld left: the next call is not a failure */
	size_t read_budget; /* bytes the parser may still read this step */
	/* The server's packet headers, seen before the parser gets them */
	uint8_t header[16];
	size_t header_got;
	uint64_t body_left; /* of the packet whose header came */
	bool past_hello;
	bool queued;	    /* packets queued since settle() last wrote */
	uint64_t last_rx_ms; /* when the server last sent anything */
	unsigned int parser_warnings; /* the parser's, logged on this connection */
};
/* The parser's warnings logged per connection: a server may repeat one at line rate. */
#define REDIR_PARSER_WARNINGS_MAX 10

/* Where the server is: "HOST:PORT", "[IPv6]:PORT" or a socket path. */
int redir_conn_init(struct redir_conn *c, const char *server, struct loop *loop,
		    const struct redir_conn_ops *ops, void *ctx);
void redir_conn_call(struct redir_conn *c);

/* For the owner's parser callbacks (priv is the owner's). */
int redir_conn_read(struct redir_conn *c, uint8_t *data, int count);
int redir_conn_write(struct redir_conn *c, uint8_t *data, int count);
void redir_conn_hello(struct redir_conn *c, const char *version);
/* A handheld came up on it: the pause before the next call starts over. */
void redir_conn_useful(struct redir_conn *c);

/* Note that the connection must end; settle() ends it. */
void redir_conn_drop(struct redir_conn *c, const char *why);
/* The handheld left: end the connection and call again at once. */
void redir_conn_departed(struct redir_conn *c);
/* A packet was queued: it leaves at the next settle(). */
static inline void redir_conn_queued(struct redir_conn *c)
{
	c->queued = true;
}
/* At the top of the loop: write out, or end the connection if noted. */
void redir_conn_settle(struct redir_conn *c);

int redir_conn_timeout_ms(const struct redir_conn *c);
void redir_conn_after_events(struct redir_conn *c);
/* At stop: serve the connection for up to ms, until done(ctx) says all is out. */
void redir_conn_drain(struct redir_conn *c, int ms, bool (*done)(void *ctx));
/* At stop: write out what is queued, then close for good. */
void redir_conn_close(struct redir_conn *c, const char *why);

#endif
