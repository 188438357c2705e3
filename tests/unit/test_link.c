// SPDX-License-Identifier: MIT
/*
 * The HotSync link with both ends in memory: handshakes on both stacks,
 * messages across the PADP fragment boundary, a lost acknowledgement and
 * its retransmission, tickles, and the bytes of the SLP wakeup.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "link.h"

/* Move everything each side wrote to the other; returns the bytes moved. */
static size_t pump(struct hs_link *a, struct hs_link *b, int64_t now)
{
	size_t moved = a->out.len + b->out.len;

	if (a->out.len) {
		CHECK_EQ(hs_link_input(b, a->out.data, a->out.len, now), 0);
		a->out.len = 0;
	}
	if (b->out.len) {
		CHECK_EQ(hs_link_input(a, b->out.data, b->out.len, now), 0);
		b->out.len = 0;
	}
	return moved;
}

static void settle(struct hs_link *a, struct hs_link *b, int64_t now)
{
	for (int i = 0; i < 10000 && pump(a, b, now); i++)
		;
}

static void connect(struct hs_link *hh, struct hs_link *desk, enum hs_stack stack)
{
	hs_link_init(hh, HS_HANDHELD, stack, 0);
	hs_link_init(desk, HS_DESKTOP, stack, 0);
	settle(hh, desk, 0);
	CHECK(hh->ready);
	CHECK(desk->ready);
	CHECK(!hh->error && !desk->error);
}

static void exchange(struct hs_link *hh, struct hs_link *desk, size_t len)
{
	uint8_t *req = malloc(len), *resp = malloc(len + 1);
	const uint8_t *got;
	size_t got_len;

	for (size_t i = 0; i < len; i++)
		req[i] = (uint8_t)(i * 7 + len);
	for (size_t i = 0; i <= len; i++)
		resp[i] = (uint8_t)(i * 13 + 1);
	CHECK_EQ(hs_link_send(desk, req, len, 0), 0);
	settle(hh, desk, 0);
	CHECK(hs_link_take(hh, &got, &got_len));
	CHECK_EQ(got_len, len);
	CHECK(got_len == len && memcmp(got, req, len) == 0);
	CHECK_EQ(hs_link_send(hh, resp, len + 1, 0), 0);
	settle(hh, desk, 0);
	CHECK(hs_link_take(desk, &got, &got_len));
	CHECK(got_len == len + 1 && memcmp(got, resp, len + 1) == 0);
	CHECK(hs_link_idle(hh) && hs_link_idle(desk));
	free(req);
	free(resp);
}

static void test_sizes(enum hs_stack stack)
{
	static const size_t sizes[] = { 2, 1023, 1024, 1025, 4096, 65536 + 7, 300000 };
	struct hs_link hh = { 0 }, desk = { 0 };

	connect(&hh, &desk, stack);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		exchange(&hh, &desk, sizes[i]);
	CHECK_EQ(hh.stats.retransmits + desk.stats.retransmits, 0);
	hs_link_free(&hh);
	hs_link_free(&desk);
}

/* The handheld's wakeup, byte for byte the frame seen in the wild. */
static void test_wakeup_bytes(void)
{
	static const uint8_t wild[] = { 0xbe, 0xef, 0xed, 0x03, 0x03, 0x02, 0x00, 0x0e, 0xff,
					0xaf, 0x01, 0xc0, 0x00, 0x0a, 0x01, 0x00, 0x01, 0x01,
					0x00, 0x00, 0x00, 0x00, 0xe1, 0x00, 0x3a, 0xb6 };
	struct hs_link hh = { 0 };
	enum hs_stack stack;

	hs_link_init(&hh, HS_HANDHELD, HS_SLP, 0);
	CHECK_EQ(hh.out.len, sizeof(wild));
	CHECK(hh.out.len == sizeof(wild) && memcmp(hh.out.data, wild, sizeof(wild)) == 0);
	CHECK(hs_link_detect(wild, 2, &stack) == -EAGAIN);
	CHECK(hs_link_detect(wild, sizeof(wild), &stack) == 0 && stack == HS_SLP);
	/* unanswered, it calls again every 2 s, beyond the ten tries of data */
	hh.out.len = 0;
	for (int i = 1; i <= 12; i++)
		CHECK_EQ(hs_link_tick(&hh, i * HS_RETRY_MS), 0);
	CHECK_EQ(hh.stats.retransmits, 12);
	CHECK_EQ(hh.out.len, 12 * sizeof(wild));
	hs_link_free(&hh);

	/* NET: header `type 1, txid, len 22` and the handheld's first body */
	hs_link_init(&hh, HS_HANDHELD, HS_NET, 0);
	CHECK_EQ(hh.out.len, 6 + 22);
	CHECK(memcmp(hh.out.data, "\x01\xff\0\0\0\x16\x90\x01", 8) == 0);
	CHECK(hs_link_detect(hh.out.data, hh.out.len, &stack) == 0 && stack == HS_NET);
	CHECK(hs_link_detect((const uint8_t *)"\x7f", 1, &stack) == -EPROTO);
	hs_link_free(&hh);
}

/* An ack lost on the way: the sender retries, the receiver acks again and
 * delivers once; a sender that never hears back gives up after ten tries. */
static void test_lost_ack(void)
{
	struct hs_link hh = { 0 }, desk = { 0 };
	const uint8_t *got;
	size_t got_len;
	uint8_t msg[3000];

	memset(msg, 0x5a, sizeof(msg));
	connect(&hh, &desk, HS_SLP);
	hh.drop_acks = 1;
	CHECK_EQ(hs_link_send(&desk, msg, sizeof(msg), 0), 0);
	settle(&hh, &desk, 0);
	CHECK(!hs_link_idle(&desk));
	CHECK_EQ(hs_link_deadline(&desk), HS_RETRY_MS);
	CHECK_EQ(hs_link_send(&desk, msg, 1, 0), -EBUSY);
	CHECK_EQ(hs_link_tick(&desk, HS_RETRY_MS - 1), 0);
	CHECK_EQ(desk.stats.retransmits, 0);
	CHECK_EQ(hs_link_tick(&desk, HS_RETRY_MS), 0);
	settle(&hh, &desk, HS_RETRY_MS);
	CHECK_EQ(desk.stats.retransmits, 1);
	CHECK_EQ(hh.stats.duplicates, 1); /* fragment 0 again, acked, not stored */
	CHECK(hs_link_take(&hh, &got, &got_len));
	CHECK(got_len == sizeof(msg) && memcmp(got, msg, sizeof(msg)) == 0);
	CHECK(!hs_link_take(&hh, &got, &got_len));
	CHECK(hs_link_idle(&desk));

	/* the ack of a last fragment lost: the repeat is not delivered twice */
	hh.drop_acks = 1;
	CHECK_EQ(hs_link_send(&desk, msg, 10, 0), 0);
	settle(&hh, &desk, 0);
	CHECK(hs_link_take(&hh, &got, &got_len));
	CHECK_EQ(hs_link_tick(&desk, HS_RETRY_MS), 0);
	settle(&hh, &desk, HS_RETRY_MS);
	CHECK_EQ(hh.stats.duplicates, 2);
	CHECK(!hs_link_take(&hh, &got, &got_len));
	CHECK(hs_link_idle(&desk));

	/* tickles are accepted and change nothing */
	CHECK_EQ(hs_link_tickle(&desk), 0);
	settle(&hh, &desk, 0);
	CHECK_EQ(hh.stats.tickles_seen, 1);
	exchange(&hh, &desk, 100);

	/* a handheld gone silent: ten tries, then a clear error */
	CHECK_EQ(hs_link_send(&desk, msg, 10, 0), 0);
	desk.out.len = 0;
	int r = 0;

	for (int i = 1; i <= HS_MAX_TRIES && r == 0; i++)
		r = hs_link_tick(&desk, i * HS_RETRY_MS);
	CHECK_EQ(r, -EPROTO);
	CHECK(desk.error && strstr(desk.error, "acknowledgement"));
	hs_link_free(&hh);
	hs_link_free(&desk);
}

/* Garbage between frames is skipped; bad handshakes fail with a reason. */
static void test_bad_input(void)
{
	struct hs_link hh = { 0 }, desk = { 0 };
	static const uint8_t noise[] = { 0x00, 0xbe, 0xef, 0x11, 0x22 };
	static const uint8_t bad_net[] = { 0x05, 0, 0, 0, 0, 0 };

	hs_link_init(&hh, HS_HANDHELD, HS_SLP, 0);
	hs_link_init(&desk, HS_DESKTOP, HS_SLP, 0);
	CHECK_EQ(hs_link_input(&desk, noise, sizeof(noise), 0), 0);
	settle(&hh, &desk, 0);
	CHECK(hh.ready && desk.ready);
	exchange(&hh, &desk, 2000);
	hs_link_free(&hh);
	hs_link_free(&desk);

	hs_link_init(&desk, HS_DESKTOP, HS_NET, 0);
	CHECK_EQ(hs_link_input(&desk, bad_net, sizeof(bad_net), 0), -EPROTO);
	CHECK(desk.error != NULL);
	CHECK_EQ(hs_link_send(&desk, bad_net, 1, 0), -EPROTO);
	hs_link_free(&desk);

	hs_link_init(&hh, HS_HANDHELD, HS_NET, 0);
	hh.out.len = 0;
	hs_link_init(&desk, HS_DESKTOP, HS_NET, 0);
	CHECK_EQ(hs_link_send(&desk, bad_net, 1, 0), -ENOTCONN);
	/* a desktop2 message where desktop1 belongs */
	static const uint8_t early[] = { 0x01, 0xff, 0, 0, 0, 2, 0x13, 0x01 };

	CHECK_EQ(hs_link_input(&hh, early, sizeof(early), 0), -EPROTO);
	hs_link_free(&hh);
	hs_link_free(&desk);
}

int main(void)
{
	test_sizes(HS_NET);
	test_sizes(HS_SLP);
	test_wakeup_bytes();
	test_lost_ack();
	test_bad_input();
	return check_result("test_link");
}
