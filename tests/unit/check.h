/* SPDX-License-Identifier: MIT */
/* A minimal check macro: report and count, keep going, exit non-zero. */
#ifndef PILOTD_CHECK_H
#define PILOTD_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			check_failures++;                                                          \
		}                                                                                  \
	} while (0)

#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (a_ != b_) {                                                                    \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__,      \
				__LINE__, #a, a_, #b, b_);                                         \
			check_failures++;                                                          \
		}                                                                                  \
	} while (0)

static inline int check_result(const char *name)
{
	if (check_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
	return check_failures ? 1 : 0;
}

#endif
