// SPDX-License-Identifier: MIT
/*
 * CAP_SYS_ADMIN from /proc/TID/status (caps.h).  The fields read are the
 * kernel's own (fs/proc/array.c task_cap(), task_state()); only "Name:"
 * holds the caller's text, and the kernel escapes newlines in it, so a
 * line that starts with a field's name is that field.  And the ids of
 * other user namespaces, from their uid_map.
 */
#include <linux/capability.h>
#include <string.h>

#include "caps.h"

/*
 * The value of the line that starts with name, or NULL; *end its end.  A
 * line must end in a newline: a read that cut one short could make a
 * number of fewer digits, with other bits in CAP_SYS_ADMIN's place.
 */
static const char *field(const char *s, size_t len, const char *name, const char **end)
{
	size_t n = strlen(name);

	for (const char *line = s; line < s + len;) {
		const char *nl = memchr(line, '\n', (size_t)(s + len - line));

		if (!nl)
			return NULL;
		if ((size_t)(nl - line) > n && memcmp(line, name, n) == 0) {
			*end = nl;
			return line + n;
		}
		line = nl + 1;
	}
	return NULL;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	return p;
}

/* A number in base 16 or 10 up to end or a blank; false if none or too long. */
static bool number(const char **pp, const char *end, unsigned int base, uint64_t *v)
{
	const char *p = skip_blanks(*pp, end);
	unsigned int digits = 0;

	*v = 0;
	for (; p < end && *p != '\t' && *p != ' '; p++, digits++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else
			return false;
		if (digits >= (base == 16 ? 16u : 10u))
			return false;
		*v = *v * base + d;
	}
	*pp = p;
	return digits > 0;
}

bool caps_same_userns(const char *map, size_t len, const char *own, size_t own_len)
{
	return len > 0 && len == own_len && memcmp(map, own, len) == 0;
}

static uint64_t rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13) ^ v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17) ^ v[2];
	v[2] = rotl(v[2], 32);
}

static void sipcompress(uint64_t v[4], uint64_t m, int rounds)
{
	v[3] ^= m;
	for (int i = 0; i < rounds; i++)
		sipround(v);
	v[0] ^= m;
}

uint64_t caps_siphash(const void *m, size_t len, const uint8_t key[16])
{
	const uint8_t *in = m;
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
			  k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull };
	uint64_t last = (uint64_t)(len & 0xff) << 56;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		sipcompress(v, le64(in + i), 2);
	for (size_t j = 0; i + j < len; j++)
		last |= (uint64_t)in[i + j] << (8 * j);
	sipcompress(v, last, 2);
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t caps_userns_id(const char *map, size_t len, const uint8_t key[16])
{
	uint64_t id = caps_siphash(map, len, key);

	return id < 2 ? id + 2 : id; /* PORT_USERNS_OWN, PORT_USERNS_UNSEEN */
}

/* Is the fsuid of status's "Uid:" line fsuid? */
static bool status_fsuid_is(const char *status, size_t len, uint32_t fsuid)
{
	const char *v, *end;
	uint64_t id = 0;

	v = field(status, len, "Uid:", &end);
	if (!v)
		return false;
	for (int i = 0; i < 4; i++) /* real, effective, saved, filesystem */
		if (!number(&v, end, 10, &id))
			return false;
	return id == fsuid;
}

enum caps_userns caps_caller_userns(const char *map, size_t len, const char *own, size_t own_len,
				    const char *status, size_t status_len, uint32_t fsuid)
{
	if (!status_fsuid_is(status, status_len, fsuid))
		return CAPS_USERNS_UNSEEN;
	return caps_same_userns(map, len, own, own_len) ? CAPS_USERNS_OWN : CAPS_USERNS_OTHER;
}

bool caps_status_admin(const char *status, size_t len, uint32_t fsuid)
{
	const char *v, *end;
	uint64_t caps;

	if (!status_fsuid_is(status, len, fsuid))
		return false;
	v = field(status, len, "CapEff:", &end);
	if (!v || !number(&v, end, 16, &caps) || skip_blanks(v, end) != end)
		return false;
	return caps & (1ull << CAP_SYS_ADMIN);
}
