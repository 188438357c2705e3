// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

bool pilotd_verbose;

void pilotd_log(enum log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = {
		[LOG_ERR_] = "error: ",
		[LOG_WARN_] = "warning: ",
		[LOG_INFO_] = "",
		[LOG_DEBUG_] = "debug: ",
	};
	va_list ap;

	if (level == LOG_DEBUG_ && !pilotd_verbose)
		return;
	fprintf(stderr, "pilotd: %s", prefix[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
