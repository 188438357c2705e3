/* SPDX-License-Identifier: MIT */
/*
 * A bounded FIFO of bytes (ring buffer).  pilotd has two: rxq holds what
 * the handheld sent until a reader takes it, txq what writers gave until
 * the handheld has taken it.  Being bounded is the point: a full queue is
 * how backpressure reaches a writer or the device.
 */
#ifndef PILOTD_BYTEQ_H
#define PILOTD_BYTEQ_H

#include <stddef.h>
#include <stdint.h>

struct byteq {
	uint8_t *buf;
	size_t cap, head, len;
};

int byteq_init(struct byteq *q, size_t cap);
void byteq_free(struct byteq *q);

static inline size_t byteq_len(const struct byteq *q)
{
	return q->len;
}
static inline size_t byteq_space(const struct byteq *q)
{
	return q->cap - q->len;
}

/* Append up to n bytes; returns how many fitted. */
size_t byteq_push(struct byteq *q, const void *data, size_t n);
/* Put n bytes back before the head, whole or not at all; returns n or 0. */
size_t byteq_unshift(struct byteq *q, const void *data, size_t n);
/* Copy up to n bytes from offset off past the head without removing them. */
size_t byteq_peek(const struct byteq *q, size_t off, void *out, size_t n);
/* Remove up to n bytes from the head; returns how many went. */
size_t byteq_drop(struct byteq *q, size_t n);
/* Keep the first n bytes, forget the rest. */
void byteq_truncate(struct byteq *q, size_t n);
/* Copy out and remove up to n bytes. */
size_t byteq_pop(struct byteq *q, void *out, size_t n);

#endif
