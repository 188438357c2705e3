/* SPDX-License-Identifier: MIT */
/*
 * The log a user reads, kept for a test to read back: pilotd_log() is
 * wrapped at link time (-Wl,--wrap=pilotd_log; tests/unit/meson.build)
 * and each line lands in kept_log.  Include in one file of a test.
 */
#ifndef PILOTD_TEST_KEPT_LOG_H
#define PILOTD_TEST_KEPT_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"

#define KEPT_LOG_SIZE 32768

static char kept_log[KEPT_LOG_SIZE]; /* since kept_log_reset(), one a line */
static unsigned int kept_log_lines;
static size_t kept_log_longest; /* the longest line's length */
static bool kept_log_echo;	/* pass each line on to stderr too */

void __real_pilotd_log(enum log_level level, const char *fmt, ...);
void __wrap_pilotd_log(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void __wrap_pilotd_log(enum log_level level, const char *fmt, ...)
{
	size_t used = strlen(kept_log);
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	kept_log_lines++;
	if (strlen(line) > kept_log_longest)
		kept_log_longest = strlen(line);
	snprintf(kept_log + used, sizeof(kept_log) - used, "%s\n", line);
	if (kept_log_echo)
		__real_pilotd_log(level, "%s", line);
}

static inline void kept_log_reset(void)
{
	kept_log[0] = '\0';
	kept_log_lines = 0;
	kept_log_longest = 0;
}

/* Did pilotd log a line with this in it? */
static inline bool logged(const char *what)
{
	return strstr(kept_log, what) != NULL;
}

#endif
