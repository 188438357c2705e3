// SPDX-License-Identifier: MIT
/* The stream queues: FIFO order across wrap-around, bounds, partial ops. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/byteq.h"

static void fill(uint8_t *buf, size_t n, uint8_t start)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(start + i);
}

/* Push and pop in uneven chunks for many rounds; the bytes stay in order. */
static void test_fifo_wraps(void)
{
	static const struct {
		size_t cap, push, pop;
	} cases[] = {
		{ .cap = 16, .push = 5, .pop = 3 },
		{ .cap = 16, .push = 16, .pop = 16 },
		{ .cap = 7, .push = 3, .pop = 5 },
		{ .cap = 4096, .push = 1000, .pop = 999 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct byteq q;
		uint8_t in[4096], out[4096];
		uint8_t next_in = 0, next_out = 0;

		CHECK_EQ(byteq_init(&q, cases[c].cap), 0);
		for (int round = 0; round < 1000; round++) {
			size_t n;

			fill(in, cases[c].push, next_in);
			n = byteq_push(&q, in, cases[c].push);
			CHECK(n <= cases[c].push);
			next_in = (uint8_t)(next_in + n);
			CHECK(byteq_len(&q) <= q.cap);
			n = byteq_pop(&q, out, cases[c].pop);
			for (size_t i = 0; i < n; i++)
				CHECK_EQ(out[i], (uint8_t)(next_out + i));
			next_out = (uint8_t)(next_out + n);
		}
		byteq_free(&q);
	}
}

static void test_bounds(void)
{
	struct byteq q;
	uint8_t buf[32] = { 0 }, out[32];

	CHECK_EQ(byteq_init(&q, 10), 0);
	CHECK_EQ(byteq_push(&q, buf, 32), 10); /* only what fits */
	CHECK_EQ(byteq_space(&q), 0);
	CHECK_EQ(byteq_push(&q, buf, 1), 0);
	CHECK_EQ(byteq_drop(&q, 4), 4);
	CHECK_EQ(byteq_space(&q), 4);
	CHECK_EQ(byteq_pop(&q, out, 100), 6);
	CHECK_EQ(byteq_len(&q), 0);
	CHECK_EQ(byteq_pop(&q, out, 1), 0);
	CHECK_EQ(byteq_drop(&q, 1), 0);
	byteq_free(&q);
}

/* peek at an offset reads across the wrap without consuming. */
static void test_peek_offset(void)
{
	struct byteq q;
	uint8_t in[8], out[8];

	CHECK_EQ(byteq_init(&q, 8), 0);
	fill(in, 6, 0);
	byteq_push(&q, in, 6);
	byteq_drop(&q, 5); /* head at 5, one byte (5) left */
	fill(in, 6, 6);
	byteq_push(&q, in, 6); /* bytes 5..11, wrapping */
	CHECK_EQ(byteq_peek(&q, 2, out, 8), 5);
	for (int i = 0; i < 5; i++)
		CHECK_EQ(out[i], 7 + i);
	CHECK_EQ(byteq_len(&q), 7);
	CHECK_EQ(byteq_peek(&q, 7, out, 1), 0);
	byteq_free(&q);
}

int main(void)
{
	test_fifo_wraps();
	test_bounds();
	test_peek_offset();
	return check_result("test_byteq");
}
