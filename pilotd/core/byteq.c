// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteq.h"

int byteq_init(struct byteq *q, size_t cap)
{
	q->buf = malloc(cap);
	if (!q->buf)
		return -ENOMEM;
	q->cap = cap;
	q->head = 0;
	q->len = 0;
	return 0;
}

void byteq_free(struct byteq *q)
{
	free(q->buf);
	q->buf = NULL;
	q->cap = q->len = q->head = 0;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

size_t byteq_push(struct byteq *q, const void *data, size_t n)
{
	size_t tail, first;

	n = min_size(n, byteq_space(q));
	if (n == 0)
		return 0;
	tail = (q->head + q->len) % q->cap;
	first = min_size(n, q->cap - tail);
	memcpy(q->buf + tail, data, first);
	memcpy(q->buf, (const uint8_t *)data + first, n - first);
	q->len += n;
	return n;
}

size_t byteq_peek(const struct byteq *q, size_t off, void *out, size_t n)
{
	size_t start, first;

	if (off >= q->len)
		return 0;
	n = min_size(n, q->len - off);
	start = (q->head + off) % q->cap;
	first = min_size(n, q->cap - start);
	memcpy(out, q->buf + start, first);
	memcpy((uint8_t *)out + first, q->buf, n - first);
	return n;
}

size_t byteq_drop(struct byteq *q, size_t n)
{
	n = min_size(n, q->len);
	q->head = q->len == n ? 0 : (q->head + n) % q->cap;
	q->len -= n;
	return n;
}

void byteq_truncate(struct byteq *q, size_t n)
{
	if (n < q->len)
		q->len = n;
	if (q->len == 0)
		q->head = 0;
}

size_t byteq_unshift(struct byteq *q, const void *data, size_t n)
{
	size_t first;

	if (n > byteq_space(q))
		return 0;
	if (n == 0)
		return 0;
	q->head = (q->head + q->cap - n) % q->cap;
	first = min_size(n, q->cap - q->head);
	memcpy(q->buf + q->head, data, first);
	memcpy(q->buf, (const uint8_t *)data + first, n - first);
	q->len += n;
	return n;
}

size_t byteq_pop(struct byteq *q, void *out, size_t n)
{
	return byteq_drop(q, byteq_peek(q, 0, out, n));
}
