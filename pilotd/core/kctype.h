/* SPDX-License-Identifier: MIT */
/*
 * The kernel's character classes (lib/ctype.c), which n_tty uses: Latin-1
 * letters, and no class at all for 128..159.  Not the C library's, whose
 * answers depend on the locale.
 */
#ifndef PILOTD_KCTYPE_H
#define PILOTD_KCTYPE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The kernel's ctype (lib/ctype.c) is Latin-1, but gives 128..159 no class
 * at all: they are not control characters, so n_tty echoes them as they
 * are and counts a column for each.
 */
static inline bool is_cntrl(uint8_t c)
{
	return c < 0x20 || c == 0x7f;
}

static inline bool is_lower(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 0xdf && c != 0xf7);
}

static inline bool is_upper(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7);
}

static inline bool is_alnum(uint8_t c)
{
	return (c >= '0' && c <= '9') || is_lower(c) || is_upper(c);
}

#endif
