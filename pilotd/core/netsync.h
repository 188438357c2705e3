/* SPDX-License-Identifier: MIT */
/*
 * The rules of network HotSync (link_netsync.c has the sockets): where
 * pilotd listens, which peers it takes, when a silent session ends and
 * how often a refusal is logged.  Plain C, host-tested (tests/unit).
 *
 * A Palm's network HotSync: the handheld calls the desktop on TCP port
 * 14238 (after a wake-up on UDP 14237, which pilotd does not answer: the
 * handheld is given the desktop's address) and speaks the NET protocol,
 * the same encapsulation a NetSync handheld uses over USB (ColdSync's
 * netsync.c; palm-protocol.md section 4).  So the bytes go to /dev/pilot
 * unchanged; nothing here reads them.
 */
#ifndef PILOTD_NETSYNC_H
#define PILOTD_NETSYNC_H

#include <stdbool.h>
#include <stdint.h>

#define NETSYNC_PORT	      14238
#define NETSYNC_LISTEN_MAX    2	 /* sockets: "PORT" alone is 127.0.0.1 and ::1 */
#define NETSYNC_ALLOW_MAX     16 /* --netsync-allow entries */
#define NETSYNC_BACKLOG	      4	 /* listen(2): connections the kernel holds for us */
#define NETSYNC_ACCEPTS_ROUND 16 /* accepted (or refused) per loop round at most */
/* Nothing from the peer and nothing to it for this long ends its session:
 * a peer cannot keep the one dock by saying nothing (a dead host is found
 * sooner by TCP keepalive, link_netsync.c). */
#define NETSYNC_IDLE_MS	      120000u
#define NETSYNC_LOG_BURST     5 /* refusal lines per window, then one summary */
#define NETSYNC_LOG_WINDOW_MS 10000u
/* Sessions docked per NETSYNC_LOG_WINDOW_MS at most; more are refused: a
 * peer that connects and hangs up in a loop would otherwise log three
 * lines and hang /dev/pilot's files up each time.  A HotSync takes
 * seconds. */
#define NETSYNC_SESSIONS_BURST 5

/* An IPv4 address is kept as IPv6's v4-mapped form (::ffff:a.b.c.d). */
struct netsync_addr {
	uint8_t b[16];
};

struct netsync_listen {
	struct netsync_addr addr[NETSYNC_LISTEN_MAX];
	bool v4[NETSYNC_LISTEN_MAX]; /* listen on AF_INET (else AF_INET6) */
	unsigned int n;
	uint16_t port;
};

struct netsync_net {
	struct netsync_addr addr;
	unsigned int prefix; /* of the 128 bits (an IPv4 /p is 96 + p) */
};

/* "[ADDR:]PORT": ADDR a numeric IPv4 or [IPv6] address; no ADDR: loopback,
 * both families; PORT 0: one the kernel picks (logged), for tests.
 * Returns 0 or -EINVAL. */
int netsync_parse_listen(const char *s, struct netsync_listen *out);
/* "ADDR[/PREFIX]", numeric.  Returns 0 or -EINVAL. */
int netsync_parse_net(const char *s, struct netsync_net *out);
/* No entries: every peer (the listening address already limits them). */
bool netsync_allowed(const struct netsync_net *nets, unsigned int n, const struct netsync_addr *a);
void netsync_addr_v4(struct netsync_addr *a, const uint8_t v4[4]);
bool netsync_addr_is_v4(const struct netsync_addr *a);
/* "a.b.c.d" or an IPv6 address, for the log. */
void netsync_addr_str(const struct netsync_addr *a, char *buf, unsigned int size);

/* Has the docked session been silent for idle_ms? (last: its last byte either way) */
static inline bool netsync_idle(uint64_t last_ms, uint64_t now_ms, uint64_t idle_ms)
{
	return now_ms >= last_ms && now_ms - last_ms >= idle_ms;
}

/* Refusal lines: NETSYNC_LOG_BURST per window; the rest counted. */
struct netsync_ratelimit {
	uint64_t window_ms;
	unsigned int lines, suppressed;
};
/*
 * May a line be logged now?  *suppressed_before: lines held back in the
 * window that just ended (logged by the caller as one summary), else 0.
 */
bool netsync_ratelimit(struct netsync_ratelimit *rl, uint64_t now_ms,
		       unsigned int *suppressed_before);
/*
 * When the lines held back are to be counted in the log, though no line
 * comes after them: the end of their window, or UINT64_MAX (none held).
 * At or after it, netsync_ratelimit_summary() returns their count (and
 * forgets them), else 0.
 */
uint64_t netsync_ratelimit_due(const struct netsync_ratelimit *rl);
unsigned int netsync_ratelimit_summary(struct netsync_ratelimit *rl, uint64_t now_ms);

#endif
