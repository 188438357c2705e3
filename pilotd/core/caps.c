// SPDX-License-Identifier: MIT
/*
 * CAP_SYS_ADMIN from /proc/TID/status (caps.h).  The fields read are the
 * kernel's own (fs/proc/array.c task_cap(), task_state()); only "Name:"
 * holds the caller's text, and the kernel escapes newlines in it, so a
 * line that starts with a field's name is that field.
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

bool caps_status_admin(const char *status, size_t len, uint32_t fsuid)
{
	const char *v, *end;
	uint64_t caps, id = 0;

	v = field(status, len, "Uid:", &end);
	if (!v)
		return false;
	for (int i = 0; i < 4; i++) /* real, effective, saved, filesystem */
		if (!number(&v, end, 10, &id))
			return false;
	if (id != fsuid)
		return false;
	v = field(status, len, "CapEff:", &end);
	if (!v || !number(&v, end, 16, &caps) || skip_blanks(v, end) != end)
		return false;
	return caps & (1ull << CAP_SYS_ADMIN);
}
