// SPDX-License-Identifier: MIT
/*
 * fuzz_ntty: pilotd's line discipline against the host's n_tty (tests/
 * support/ntty_diff.h) on the fuzzer's cases.  The input is a case as
 * nd_case_from_bytes() reads it: three flag words, the c_cc, VMIN, the
 * number of steps, then each step (kind, length, bytes or argument).  A
 * difference that docs/tty-differences.md does not list as `ntty:NAME`
 * aborts, as does a request answered other than once or a failure of the
 * pty's side (ntty_diff.h: a write to the master fell short, a sync could
 * not be exact).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage_keep.h"
#include "ntty_diff.h"
#include "port_harness.h"

static char listed[ND_LISTED_MAX][64];
static int nlisted;
static const char *text_case; /* NTTY_TEXT: a case as nd_case_print() wrote it, for any input */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A fixed seed must make the same inputs on any machine, so nothing the
 * host's pty did may steer libFuzzer: ntty_diff.c is linked without
 * coverage (meson.build's fuzz_uncovered), the verdict below too, and
 * libFuzzer must not take words from the comparisons of a run
 * (-use_cmp=0, -use_memmem=0): its memcmp() and strcmp() hooks see
 * every call in the process, ntty_diff.c's of n_tty's bytes and the name
 * it gave among them.  With them, a fixed-seed run on a loaded machine
 * made other inputs (fuzz-ntty, run 4 of 20, coverage parted at input
 * 2644) and one failed.  Flags given after these win, so a long run may
 * turn them on again.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char *args[256];
	int n = 0;

	if (*argc > 0 && *argc < (int)(sizeof(args) / sizeof(args[0])) - 3) {
		args[n++] = (*argv)[0];
		args[n++] = "-use_cmp=0";
		args[n++] = "-use_memmem=0";
		for (int i = 1; i < *argc; i++)
			args[n++] = (*argv)[i];
		args[n] = NULL;
		*argc = n;
		*argv = args;
	}
	nd_txq_size = ph_config_pilotd.txq_size;
	if (getenv("NTTY_TXQ"))
		nd_txq_size = strtoul(getenv("NTTY_TXQ"), NULL, 0);
	text_case = getenv("NTTY_TEXT");
	nlisted = nd_read_listed(NTTY_DOC, listed, ND_LISTED_MAX);
	if (nlisted < 0) {
		perror("fuzz_ntty: " NTTY_DOC);
		abort();
	}
	return 0;
}

__attribute__((no_sanitize("coverage"))) static bool is_listed(const char *name)
{
	for (int i = 0; name && i < nlisted; i++)
		if (!strcmp(listed[i], name))
			return true;
	return false;
}

/*
 * Its branches follow the pty's verdict: no coverage (see above).  What the
 * verdict runs of pilotd must not count either (coverage_keep.h): libFuzzer's
 * view is kept after pilotd's own run and put back after n_tty's and the
 * verdict.
 */
__attribute__((no_sanitize("coverage"))) int LLVMFuzzerTestOneInput(const uint8_t *data,
								      size_t size)
{
	static struct nd_trace port, pty;
	static char text[8192];
	static struct nd_case c;
	static struct coverage_kept kept;
	const char *name;
	int at, err, runs;

	if (!text_case || nd_case_parse(&c, text_case) < 0)
		nd_case_from_bytes(&c, data, size);
	if (nd_run_port(&c, &port) < 0) {
		fprintf(stderr, "fuzz_ntty: a request answered other than once\n");
		abort();
	}
	coverage_keep(&kept);
	err = nd_run_pty_against(&c, &port, &pty, &at, &name, &runs);
	coverage_put_back(&kept);
	if (err < 0) {
		nd_case_print(&c, text, sizeof(text));
		fprintf(stderr, "fuzz_ntty: the pty side failed %d times (%s): %s\n", runs,
			strerror(-err), text);
		abort();
	}
	if (getenv("NTTY_FULL")) {
		nd_case_print(&c, text, sizeof(text));
		fprintf(stderr, "fuzz_ntty: step %d (%s): %s\n--- pilotd:\n%s--- n_tty:\n%s", at,
			at < 0 ? "same" : name ? name : "unexplained", text, port.text, pty.text);
	}
	if (at >= 0 && !is_listed(name)) {
		nd_case_print(&c, text, sizeof(text));
		fprintf(stderr,
			"fuzz_ntty: step %d differs (%s): %s\n--- pilotd:\n%s--- n_tty:\n%s", at,
			name ? name : "unexplained", text, port.text, pty.text);
		abort();
	}
	return 0;
}
