// SPDX-License-Identifier: MIT
/*
 * read() on /dev/pilot with and without kernel-patches/stream-data.
 * Usage: stream-push pushed|asked [blocking] [writes-asked] [PILOTD-ARG]
 *
 * Starts its own pilotd -v (its log in a file), sets the port raw (VMIN 1,
 * VTIME 0, as a desktop does) and runs rounds of an echo: write a packet
 * of PACKET bytes, read the handheld's echo back in reads of READ_SIZE
 * bytes, each after poll() says readable, and compare every byte, in
 * order.  With "blocking", each read starts without a poll(), mostly
 * before the bytes arrive: the reads that find the kernel's buffer empty
 * come to pilotd as requests while it pushes, the order window of
 * docs/kernel-data-path.md (a read that waits READ_WAIT s fails the test
 * instead of hanging it).  Then it reads the count
 * pilotd logs at exit ("reads: N came as requests; input kept by the
 * kernel: B bytes ...") against the reads it made:
 *   pushed  the kernel offered to keep input and pilotd took it: reads
 *           answered without a request, at least one a round (blocking:
 *           at least one; most of those reads start before the bytes are
 *           there and come as requests), and bytes pushed;
 *   asked   a kernel that did not offer it (6.1), or pilotd told not to
 *           (--no-stream-data): every read is a request, nothing pushed.
 * Writes (kernel-patches/stream-write): the first round's packet is
 * written while pilotd is stopped (SIGSTOP).  Where pilotd says the kernel
 * takes writes ("pushed" requires it, unless "writes-asked") the write()
 * returns all the same (within WRITE_WAIT s, a loose guard); elsewhere it
 * waits for pilotd (none returns in 1 s: without pilotd it cannot return
 * at all), and every write comes to pilotd as a request ("writes: N came
 * as requests" at exit).  "writes-asked": the kernel offered to take
 * writes and pilotd declined them (--no-stream-write).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib.h"

#define LOG_PATH  "/tmp/pilotd-stream-push.log"
#define ROUNDS	  100
#define PACKET	  512
#define READ_SIZE 32
#define READ_WAIT 10 /* s; an echo round takes milliseconds */
#define WRITE_WAIT 10 /* s; a write into the kernel's buffer takes microseconds */

static bool blocking;

/* Did pilotd's log say so (its init lines are there once the node opens)? */
static bool log_says(const char *what)
{
	FILE *f = fopen(LOG_PATH, "r");
	char line[512];
	bool found = false;

	if (!f)
		fail("cannot read " LOG_PATH ": %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static void on_alarm(int sig)
{
	(void)sig; /* only to interrupt the read: it fails with EINTR */
}

/* Did the write made while pilotd was stopped return within 1 s? */
static bool written_while_stopped;

/* Write from a child while pilotd is stopped; the child reports the return. */
static void write_with_pilotd_stopped(int fd, const unsigned char *out, size_t len, pid_t pilotd)
{
	struct pollfd p;
	int done[2];
	pid_t child;
	char c;

	if (pipe(done))
		fail("pipe: %s", strerror(errno));
	kill(pilotd, SIGSTOP);
	child = fork();
	if (child == 0) {
		write_full(fd, out, len);
		/* reported before the exit, whose close waits for the bytes */
		_exit(write(done[1], "w", 1) == 1 ? 0 : 1);
	}
	close(done[1]);
	p = (struct pollfd){ .fd = done[0], .events = POLLIN };
	/* long where it should return, short where it cannot */
	written_while_stopped =
		poll(&p, 1, log_says("the kernel takes writes") ? WRITE_WAIT * 1000 : 1000) == 1;
	kill(pilotd, SIGCONT);
	if (read(done[0], &c, 1) != 1)
		fail("the write made while pilotd was stopped did not finish");
	close(done[0]);
	waitpid(child, NULL, 0);
}

/* One round of the echo; returns the reads it took.  Round 0 stops pilotd. */
static long echo_round(int fd, int round, pid_t pilotd)
{
	unsigned char out[PACKET], in[PACKET];
	size_t got = 0;
	long reads = 0;

	for (size_t i = 0; i < PACKET; i++)
		out[i] = (unsigned char)(i * 7 + (size_t)round);
	if (round == 0)
		write_with_pilotd_stopped(fd, out, PACKET, pilotd);
	else
		write_full(fd, out, PACKET);
	while (got < PACKET) {
		size_t want = PACKET - got < READ_SIZE ? PACKET - got : READ_SIZE;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		/* as a desktop reads (palm-sync): when poll says so.  A read that
		 * starts before the bytes arrive can meet the order window of
		 * docs/kernel-data-path.md, and hang. */
		if (!blocking && poll(&p, 1, 5000) != 1)
			fail("round %d: no input within 5 s after %zu of %d bytes", round, got,
			     PACKET);
		alarm(blocking ? READ_WAIT : 0);
		n = read(fd, in + got, want);
		alarm(0);
		if (n < 0 && errno == EINTR)
			fail("round %d: a read waited %d s after %zu of %d bytes: the bytes "
			     "wait where the read does not look (the order window)",
			     round, READ_WAIT, got, PACKET);

		if (n <= 0)
			fail("round %d: read returned %zd (%s) after %zu of %d bytes", round, n,
			     n < 0 ? strerror(errno) : "end of file", got, PACKET);
		got += (size_t)n;
		reads++;
	}
	for (size_t i = 0; i < PACKET; i++)
		if (in[i] != out[i])
			fail("round %d: byte %zu of the echo is 0x%02x, sent 0x%02x: "
			     "bytes lost or out of order",
			     round, i, in[i], out[i]);
	return reads;
}

/* pilotd's exit lines: reads and writes that came as requests, bytes pushed. */
static bool log_counts(unsigned long long *requests, unsigned long long *pushed, bool *offered,
		       unsigned long long *write_requests, bool *writes_taken)
{
	FILE *f = fopen(LOG_PATH, "r");
	char line[512];
	bool found = false;

	if (!f)
		fail("cannot read " LOG_PATH ": %s", strerror(errno));
	*offered = false;
	*writes_taken = false;
	*write_requests = 0;
	while (fgets(line, sizeof(line), f)) {
		const char *at;

		line[strcspn(line, "\n")] = '\0';
		at = strstr(line, "reads: ");
		if (strstr(line, "the kernel keeps input"))
			*offered = true;
		if (strstr(line, "the kernel takes writes"))
			*writes_taken = true;
		if (strstr(line, "writes: ") &&
		    sscanf(strstr(line, "writes: "), "writes: %llu came as requests",
			   write_requests) == 1)
			note("pilotd: %s", strstr(line, "writes: "));
		if (at && sscanf(at,
				 "reads: %llu came as requests; input kept by the kernel: "
				 "%llu bytes",
				 requests, pushed) == 2) {
			note("pilotd: %s", at); /* its pushes refused, for room or a read */
			found = true;
		}
	}
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	bool pushed = argc >= 2 && strcmp(argv[1], "pushed") == 0;
	struct sigaction alarm_action = { .sa_handler = on_alarm }; /* no SA_RESTART */
	unsigned long long requests, bytes, write_requests;
	long reads = 0;
	bool offered, writes_taken, writes_asked = false;
	pid_t pid;
	int fd;

	guest_test_name("stream-push");
	if (argc < 2 || (!pushed && strcmp(argv[1], "asked") != 0))
		fail("usage: stream-push pushed|asked [blocking] [writes-asked] [PILOTD-ARG]");
	if (argc >= 3 && strcmp(argv[2], "blocking") == 0) {
		blocking = true;
		argv++, argc--;
	}
	if (argc >= 3 && strcmp(argv[2], "writes-asked") == 0) {
		writes_asked = true;
		argv++, argc--;
	}
	if (argc > 3)
		fail("usage: stream-push pushed|asked [blocking] [writes-asked] [PILOTD-ARG]");
	if (sigaction(SIGALRM, &alarm_action, NULL) != 0)
		fail("sigaction: %s", strerror(errno));
	pid = start_own_pilotd(LOG_PATH, argc == 3 ? argv[2] : NULL);
	fd = open_attached(O_RDWR | O_NOCTTY, 20);
	set_raw(fd);
	for (int i = 0; i < ROUNDS; i++)
		reads += echo_round(fd, i, pid);
	close(fd);
	stop_own_pilotd(pid);

	if (!log_counts(&requests, &bytes, &offered, &write_requests, &writes_taken))
		fail("pilotd logged no count of its read requests at exit");
	note("%d writes of %d bytes, %llu of them requests to pilotd; the one made while pilotd "
	     "was stopped %s",
	     ROUNDS, PACKET, write_requests,
	     written_while_stopped ? "returned at once" : "waited for pilotd");
	if (written_while_stopped != writes_taken)
		fail("pilotd %s that the kernel takes writes, yet a write made while it was "
		     "stopped %s",
		     writes_taken ? "says" : "does not say",
		     written_while_stopped ? "returned at once" : "waited for it");
	if (pushed && !writes_asked && !writes_taken)
		fail("pilotd did not say that the kernel takes writes");
	if (writes_asked && writes_taken)
		fail("pilotd says the kernel takes writes");
	if (writes_asked && !log_says("the kernel offers to take writes (not taken"))
		fail("pilotd did not say that the kernel offered to take writes");
	if (!writes_taken && write_requests < ROUNDS)
		fail("%llu write requests for %d writes: every write should be a request",
		     write_requests, ROUNDS);
	note("%d rounds of %d bytes, %s reads: %ld reads, %llu of them requests to pilotd, "
	     "%llu bytes pushed to the kernel",
	     ROUNDS, PACKET, blocking ? "blocking" : "polled", reads, requests, bytes);
	if (pushed) {
		if (!offered)
			fail("pilotd did not say that the kernel keeps input");
		if (bytes == 0 || reads - (long)requests < (blocking ? 1 : ROUNDS))
			fail("%ld of %ld reads were answered without a request, fewer than %s: "
			     "pilotd does not push",
			     reads - (long)requests, reads, blocking ? "one" : "one a round");
	} else {
		if (offered)
			fail("pilotd says the kernel keeps input");
		if (bytes != 0 || (long)requests < reads)
			fail("%llu bytes pushed, %llu requests for %ld reads: every read should "
			     "be a request",
			     bytes, requests, reads);
	}
	return 0;
}
