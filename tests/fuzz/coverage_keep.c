// SPDX-License-Identifier: MIT
/* coverage_keep.h: libFuzzer's view of a run, kept and put back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage_keep.h"

/* the linker's bounds of the counters' section; libFuzzer's stack depth */
extern uint8_t __start___sancov_cntrs[], __stop___sancov_cntrs[];
extern __thread uintptr_t __sancov_lowest_stack;

void coverage_keep(struct coverage_kept *k)
{
	k->len = (size_t)(__stop___sancov_cntrs - __start___sancov_cntrs);
	if (k->len > sizeof(k->counters)) {
		fprintf(stderr, "coverage_keep: %zu counters, room for %zu\n", k->len,
			sizeof(k->counters));
		abort();
	}
	memcpy(k->counters, __start___sancov_cntrs, k->len);
	k->lowest_stack = __sancov_lowest_stack;
}

void coverage_put_back(const struct coverage_kept *k)
{
	memcpy(__start___sancov_cntrs, k->counters, k->len);
	__sancov_lowest_stack = k->lowest_stack;
}
