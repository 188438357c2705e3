// SPDX-License-Identifier: MIT
/* The rules of network HotSync; see netsync.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netsync.h"

void netsync_addr_v4(struct netsync_addr *a, const uint8_t v4[4])
{
	memset(a->b, 0, 10);
	a->b[10] = a->b[11] = 0xff;
	memcpy(a->b + 12, v4, 4);
}

bool netsync_addr_is_v4(const struct netsync_addr *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(a->b, mapped, sizeof(mapped)) == 0;
}

void netsync_addr_str(const struct netsync_addr *a, char *buf, unsigned int size)
{
	if (netsync_addr_is_v4(a))
		snprintf(buf, size, "%u.%u.%u.%u", a->b[12], a->b[13], a->b[14], a->b[15]);
	else if (!inet_ntop(AF_INET6, a->b, buf, size) && size)
		buf[0] = '\0';
}

/* Numeric IPv4 or IPv6 (without brackets); v4 says which it was. */
static int parse_addr(const char *s, struct netsync_addr *a, bool *v4)
{
	uint8_t b4[4];

	if (inet_pton(AF_INET, s, b4) == 1) {
		netsync_addr_v4(a, b4);
		*v4 = true;
		return 0;
	}
	*v4 = false;
	return inet_pton(AF_INET6, s, a->b) == 1 ? 0 : -EINVAL;
}

/* Digits only, 0..max. */
static int parse_number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 5)
		return -EINVAL;
	*out = strtoul(s, &end, 10);
	return *out <= max ? 0 : -EINVAL;
}

int netsync_parse_listen(const char *s, struct netsync_listen *out)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 };
	char host[64];
	const char *colon = strrchr(s, ':'), *port = colon ? colon + 1 : s;
	unsigned long p;
	size_t hlen;

	*out = (struct netsync_listen){ 0 };
	if (parse_number(port, 65535, &p) < 0)
		return -EINVAL;
	out->port = (uint16_t)p;
	if (!colon) { /* loopback, both families */
		netsync_addr_v4(&out->addr[0], lo4);
		out->v4[0] = true;
		out->addr[1].b[15] = 1; /* ::1 */
		out->n = 2;
		return 0;
	}
	hlen = (size_t)(colon - s);
	if (hlen >= 2 && s[0] == '[' && s[hlen - 1] == ']') {
		s++;
		hlen -= 2;
	} else if (memchr(s, ':', hlen)) {
		return -EINVAL; /* IPv6 takes brackets: [::1]:14238 */
	}
	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	out->n = 1;
	return parse_addr(host, &out->addr[0], &out->v4[0]);
}

int netsync_parse_net(const char *s, struct netsync_net *out)
{
	char host[64];
	const char *slash = strchr(s, '/');
	size_t hlen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned long prefix;
	bool v4;

	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (parse_addr(host, &out->addr, &v4) < 0)
		return -EINVAL;
	if (!slash)
		prefix = v4 ? 32 : 128;
	else if (parse_number(slash + 1, v4 ? 32 : 128, &prefix) < 0)
		return -EINVAL;
	/* ::ffff:10.0.0.0/8 would be ::/8, every IPv4 peer and ::1: say 10.0.0.0/8 */
	if (!v4 && netsync_addr_is_v4(&out->addr) && prefix < 96)
		return -EINVAL;
	out->prefix = (unsigned int)(v4 ? 96 + prefix : prefix);
	return 0;
}

static bool in_net(const struct netsync_net *net, const struct netsync_addr *a)
{
	unsigned int whole = net->prefix / 8, bits = net->prefix % 8;

	if (memcmp(net->addr.b, a->b, whole) != 0)
		return false;
	if (bits == 0)
		return true;
	return ((net->addr.b[whole] ^ a->b[whole]) & (uint8_t)(0xff << (8 - bits))) == 0;
}

bool netsync_allowed(const struct netsync_net *nets, unsigned int n, const struct netsync_addr *a)
{
	if (n == 0)
		return true;
	for (unsigned int i = 0; i < n; i++)
		if (in_net(&nets[i], a))
			return true;
	return false;
}

bool netsync_ratelimit(struct netsync_ratelimit *rl, uint64_t now_ms,
		       unsigned int *suppressed_before)
{
	*suppressed_before = 0;
	if (rl->lines == 0 || now_ms - rl->window_ms >= NETSYNC_LOG_WINDOW_MS) {
		*suppressed_before = rl->suppressed;
		rl->window_ms = now_ms;
		rl->lines = 0;
		rl->suppressed = 0;
	}
	if (rl->lines < NETSYNC_LOG_BURST) {
		rl->lines++;
		return true;
	}
	rl->suppressed++;
	return false;
}

uint64_t netsync_ratelimit_due(const struct netsync_ratelimit *rl)
{
	return rl->suppressed ? rl->window_ms + NETSYNC_LOG_WINDOW_MS : UINT64_MAX;
}

unsigned int netsync_ratelimit_summary(struct netsync_ratelimit *rl, uint64_t now_ms)
{
	unsigned int n = rl->suppressed;

	if (!n || now_ms < netsync_ratelimit_due(rl))
		return 0;
	rl->suppressed = 0;
	return n;
}
