/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer's view of a run: the inline 8-bit counters of the code built
 * with coverage and the deepest stack it reached (-fsanitize=fuzzer's
 * stack-depth).  fuzz_ntty's verdict runs pilotd's side again where
 * n_tty's trace asks for it (ntty_diff.c's held_back(): pilotd without the
 * writes n_tty refused), and how n_tty ran depends on the host's timing:
 * that run's coverage must not count, or a fixed seed makes other inputs
 * on a loaded machine (fuzz-ntty's new inputs were 370, 388, 370, 391,
 * 370, 374 and 370 in seven suite runs of one tree beside other work,
 * 2026-12-07).  coverage_keep() notes libFuzzer's view after pilotd's own
 * run, coverage_put_back() restores it once the verdict is in.
 *
 * Built without coverage (meson.build's fuzz_uncovered): a file compiled
 * with it may not name the counters' section bounds, which its own module
 * constructor registers with libFuzzer.
 */
#ifndef PILOTD_FUZZ_COVERAGE_KEEP_H
#define PILOTD_FUZZ_COVERAGE_KEEP_H

#include <stddef.h>
#include <stdint.h>

struct coverage_kept {
	uint8_t counters[65536];
	size_t len;
	uintptr_t lowest_stack;
};

void coverage_keep(struct coverage_kept *k);
void coverage_put_back(const struct coverage_kept *k);

#endif
