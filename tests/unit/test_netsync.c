// SPDX-License-Identifier: MIT
/*
 * The rules of network HotSync (core/netsync.h): where pilotd listens,
 * which peers --netsync-allow lets in, the idle rule and the rate limit
 * on refusal lines.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "core/netsync.h"

static struct netsync_addr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	const uint8_t q[4] = { a, b, c, d };
	struct netsync_addr r;

	netsync_addr_v4(&r, q);
	return r;
}

static struct netsync_addr v6(const char *s)
{
	struct netsync_net n;

	CHECK_EQ(netsync_parse_net(s, &n), 0);
	return n.addr;
}

static void test_listen(void)
{
	static const struct {
		const char *s;
		int r;
		unsigned int n;
		uint16_t port;
		const char *addr0;
	} cases[] = {
		{ .s = "14238", .n = 2, .port = 14238, .addr0 = "127.0.0.1" },
		{ .s = "0.0.0.0:14238", .n = 1, .port = 14238, .addr0 = "0.0.0.0" },
		{ .s = "192.168.1.5:1", .n = 1, .port = 1, .addr0 = "192.168.1.5" },
		{ .s = "[::]:14238", .n = 1, .port = 14238, .addr0 = "::" },
		{ .s = "[fe80::1]:65535", .n = 1, .port = 65535, .addr0 = "fe80::1" },
		{ .s = "127.0.0.1:0", .n = 1, .port = 0, .addr0 = "127.0.0.1" },
		{ .s = "", .r = -EINVAL },
		{ .s = "65536", .r = -EINVAL },
		{ .s = "-1", .r = -EINVAL },
		{ .s = "12x", .r = -EINVAL },
		{ .s = "localhost:14238", .r = -EINVAL }, /* numeric only: no resolver */
		{ .s = "::1:14238", .r = -EINVAL },	  /* IPv6 takes brackets */
		{ .s = "[::1:14238", .r = -EINVAL },
		{ .s = ":14238", .r = -EINVAL },
		{ .s = "[]:14238", .r = -EINVAL },
		{ .s = "1.2.3.4:", .r = -EINVAL },
		{ .s = "1.2.3.4:99999999999", .r = -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct netsync_listen l;
		char buf[64];
		int r = netsync_parse_listen(cases[i].s, &l);

		CHECK_EQ(r, cases[i].r);
		if (r < 0)
			continue;
		CHECK_EQ(l.n, cases[i].n);
		CHECK_EQ(l.port, cases[i].port);
		netsync_addr_str(&l.addr[0], buf, sizeof(buf));
		if (strcmp(buf, cases[i].addr0) != 0) {
			fprintf(stderr, "listen '%s': address %s, expected %s\n", cases[i].s, buf,
				cases[i].addr0);
			check_failures++;
		}
	}
	/* "PORT" alone: 127.0.0.1 and ::1, never a wildcard */
	{
		struct netsync_listen l;
		struct netsync_addr lo6 = v6("::1");

		CHECK_EQ(netsync_parse_listen("14238", &l), 0);
		CHECK(l.v4[0] && !l.v4[1]);
		CHECK(memcmp(l.addr[1].b, lo6.b, 16) == 0);
	}
}

static void test_allow(void)
{
	struct netsync_net nets[3];
	struct netsync_addr a;

	CHECK_EQ(netsync_parse_net("10.0.0.0/8", &nets[0]), 0);
	CHECK_EQ(netsync_parse_net("192.168.1.7", &nets[1]), 0);
	CHECK_EQ(netsync_parse_net("fd00::/8", &nets[2]), 0);
	a = v4(10, 200, 3, 4);
	CHECK(netsync_allowed(nets, 3, &a));
	a = v4(11, 0, 0, 1);
	CHECK(!netsync_allowed(nets, 3, &a));
	a = v4(192, 168, 1, 7);
	CHECK(netsync_allowed(nets, 3, &a));
	a = v4(192, 168, 1, 8);
	CHECK(!netsync_allowed(nets, 3, &a));
	a = v6("fd12:3456::1");
	CHECK(netsync_allowed(nets, 3, &a));
	a = v6("fe80::1");
	CHECK(!netsync_allowed(nets, 3, &a));
	/* an IPv4 peer on a dual-stack socket comes as ::ffff:a.b.c.d: the same */
	a = v6("::ffff:10.1.2.3");
	CHECK(netsync_allowed(nets, 3, &a));
	/* an IPv4 /0 is every IPv4 peer, no IPv6 one */
	CHECK_EQ(netsync_parse_net("0.0.0.0/0", &nets[0]), 0);
	a = v4(8, 8, 8, 8);
	CHECK(netsync_allowed(nets, 1, &a));
	a = v6("2001:db8::1");
	CHECK(!netsync_allowed(nets, 1, &a));
	/* prefixes that are not a whole byte */
	CHECK_EQ(netsync_parse_net("172.16.0.0/12", &nets[0]), 0);
	a = v4(172, 31, 255, 255);
	CHECK(netsync_allowed(nets, 1, &a));
	a = v4(172, 32, 0, 0);
	CHECK(!netsync_allowed(nets, 1, &a));
	/* no list: everyone (the listening address limits them) */
	CHECK(netsync_allowed(nets, 0, &a));
	/* what is refused */
	CHECK_EQ(netsync_parse_net("10.0.0.0/33", &nets[0]), -EINVAL);
	CHECK_EQ(netsync_parse_net("::/129", &nets[0]), -EINVAL);
	CHECK_EQ(netsync_parse_net("10.0.0.0/", &nets[0]), -EINVAL);
	CHECK_EQ(netsync_parse_net("host.example", &nets[0]), -EINVAL);
	CHECK_EQ(netsync_parse_net("/8", &nets[0]), -EINVAL);
	CHECK_EQ(netsync_parse_net("10.0.0.0/8x", &nets[0]), -EINVAL);
	/* an IPv4-mapped address's prefix counts IPv6 bits: /8 would be ::/8,
	 * every IPv4 peer (and ::1), not 10.0.0.0/8 */
	CHECK_EQ(netsync_parse_net("::ffff:10.0.0.0/8", &nets[0]), -EINVAL);
	CHECK_EQ(netsync_parse_net("::ffff:10.0.0.0/104", &nets[0]), 0);
	a = v4(10, 9, 9, 9);
	CHECK(netsync_allowed(nets, 1, &a));
	a = v4(11, 9, 9, 9);
	CHECK(!netsync_allowed(nets, 1, &a));
}

static void test_idle(void)
{
	CHECK(!netsync_idle(1000, 1000 + NETSYNC_IDLE_MS - 1, NETSYNC_IDLE_MS));
	CHECK(netsync_idle(1000, 1000 + NETSYNC_IDLE_MS, NETSYNC_IDLE_MS));
	CHECK(!netsync_idle(5000, 4000, NETSYNC_IDLE_MS)); /* a byte stamped after now */
}

static void test_ratelimit(void)
{
	struct netsync_ratelimit rl = { 0 };
	unsigned int held, logged = 0;

	/* 1000 refusals within a window: NETSYNC_LOG_BURST lines */
	for (int i = 0; i < 1000; i++)
		logged += netsync_ratelimit(&rl, 50000 + (uint64_t)i, &held);
	CHECK_EQ(logged, NETSYNC_LOG_BURST);
	/* the next window: a line again, and the count of those held back */
	CHECK(netsync_ratelimit(&rl, 50000 + NETSYNC_LOG_WINDOW_MS, &held));
	CHECK_EQ(held, 1000 - NETSYNC_LOG_BURST);
	CHECK(netsync_ratelimit(&rl, 50000 + NETSYNC_LOG_WINDOW_MS + 1, &held));
	CHECK_EQ(held, 0);
	/* a storm that stops: its count is logged when its window ends,
	 * not only at the next refusal, which may never come */
	rl = (struct netsync_ratelimit){ 0 };
	for (int i = 0; i < 8; i++)
		netsync_ratelimit(&rl, 70000, &held);
	CHECK_EQ(netsync_ratelimit_due(&rl), 70000 + NETSYNC_LOG_WINDOW_MS);
	CHECK_EQ(netsync_ratelimit_summary(&rl, 70000 + NETSYNC_LOG_WINDOW_MS - 1), 0);
	CHECK_EQ(netsync_ratelimit_summary(&rl, 70000 + NETSYNC_LOG_WINDOW_MS),
		 8 - NETSYNC_LOG_BURST);
	CHECK_EQ(netsync_ratelimit_summary(&rl, 90000), 0);
	CHECK_EQ(netsync_ratelimit_due(&rl), UINT64_MAX);
	CHECK(netsync_ratelimit(&rl, 90000, &held));
	CHECK_EQ(held, 0); /* counted once */
	/* the very first refusal at time 0 is logged */
	rl = (struct netsync_ratelimit){ 0 };
	CHECK(netsync_ratelimit(&rl, 0, &held));
}

int main(void)
{
	test_listen();
	test_allow();
	test_idle();
	test_ratelimit();
	return check_result("test_netsync");
}
