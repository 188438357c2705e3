/* SPDX-License-Identifier: MIT */
#ifndef PILOTD_LOG_H
#define PILOTD_LOG_H

#include <stdbool.h>

enum log_level { LOG_ERR_, LOG_WARN_, LOG_INFO_, LOG_DEBUG_ };

extern bool pilotd_verbose;

/* One line on stderr, prefixed "pilotd: "; debug lines only with -v. */
void pilotd_log(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)   pilotd_log(LOG_ERR_, __VA_ARGS__)
#define log_warn(...)  pilotd_log(LOG_WARN_, __VA_ARGS__)
#define log_info(...)  pilotd_log(LOG_INFO_, __VA_ARGS__)
#define log_debug(...) pilotd_log(LOG_DEBUG_, __VA_ARGS__)

#endif
