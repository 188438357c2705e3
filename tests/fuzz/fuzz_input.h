/* SPDX-License-Identifier: MIT */
/*
 * The fuzzers' input: libFuzzer's bytes read front to back as the values
 * a fuzzer needs.  Past the end every read gives zeros, so any input,
 * however short, drives a whole scenario.
 */
#ifndef PILOTD_FUZZ_INPUT_H
#define PILOTD_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct input {
	const uint8_t *p;
	size_t left;
};

static inline uint8_t input_u8(struct input *in)
{
	if (in->left == 0)
		return 0;
	in->left--;
	return *in->p++;
}

/* Little-endian, as USB and the seed files have it. */
static inline uint16_t input_u16(struct input *in)
{
	uint16_t lo = input_u8(in);

	return (uint16_t)(lo | input_u8(in) << 8);
}

static inline uint32_t input_u32(struct input *in)
{
	uint32_t lo = input_u16(in);

	return lo | (uint32_t)input_u16(in) << 16;
}

/*
 * The next len bytes in a heap block of exactly len bytes (zeros past the
 * end of the input), so AddressSanitizer sees a read beyond them; NULL for
 * none, as CUSE and libusb give no buffer for no bytes.  Free with free().
 */
static inline uint8_t *input_bytes(struct input *in, size_t len)
{
	uint8_t *b;

	if (len == 0)
		return NULL;
	b = malloc(len);
	if (!b)
		abort();
	for (size_t i = 0; i < len; i++)
		b[i] = input_u8(in);
	return b;
}

/* A broken invariant is a crash, for libFuzzer to keep the input. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
