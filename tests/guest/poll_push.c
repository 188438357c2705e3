// SPDX-License-Identifier: MIT
/*
 * poll() on /dev/pilot with and without kernel-patches/poll-events.
 * Usage: poll-push pushed|asked
 *
 * Starts its own pilotd -v (its log in a file), then runs rounds of what
 * a serial desktop does per packet: write a byte, poll until the echo
 * makes /dev/pilot readable, read it, and poll once more at once, which
 * must say writable and not readable (the byte is gone: a stale POLLIN
 * would send a select()-then-read() desktop into a read that waits).
 * Then it counts the poll requests pilotd's log names:
 *   pushed  the kernel keeps the events pilotd pushes and answers poll
 *           from them: pilotd says so, and is asked a few times at most
 *           (a file's first polls), not once per round;
 *   asked   a kernel without the notification: pilotd says so, and is
 *           asked at every poll, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib.h"

#define LOG_PATH "/tmp/pilotd-poll-push.log"
#define ROUNDS	 200
/* A file's first polls reach pilotd, before its first push: a few. */
#define ASKED_WITH_PUSH_MAX 8

/* One round; fails with what the desktop would have seen. */
static void round_trip(int fd, int i)
{
	unsigned char c = (unsigned char)i, d;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	write_full(fd, &c, 1);
	n = poll(&p, 1, 5000);
	if (n != 1 || !(p.revents & POLLIN))
		fail("round %d: the echo did not make " PILOT_DEV " readable within 5 s "
		     "(poll %d, revents 0x%x)", i, n, p.revents);
	if (read(fd, &d, 1) != 1 || d != c)
		fail("round %d: read did not return the echoed byte", i);
	p = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	n = poll(&p, 1, 0);
	if (n != 1 || (p.revents & POLLIN) || !(p.revents & POLLOUT))
		fail("round %d: after reading the only byte, poll says revents 0x%x "
		     "(expected POLLOUT without POLLIN)", i, p.revents);
}

/* Lines of the log that contain what. */
static int log_count(const char *what)
{
	FILE *f = fopen(LOG_PATH, "r");
	char line[512];
	int n = 0;

	if (!f)
		fail("cannot read " LOG_PATH ": %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	bool pushed = argc == 2 && strcmp(argv[1], "pushed") == 0;
	int fd, asked;
	pid_t pid;

	guest_test_name("poll-push");
	if (argc != 2 || (!pushed && strcmp(argv[1], "asked") != 0))
		fail("usage: poll-push pushed|asked");
	pid = start_own_pilotd(LOG_PATH, NULL);
	fd = open_attached(O_RDWR | O_NOCTTY | O_NONBLOCK, 20);
	set_raw(fd);
	for (int i = 0; i < ROUNDS; i++)
		round_trip(fd, i);
	close(fd);
	stop_own_pilotd(pid);

	asked = log_count("poll fh");
	note("%d rounds: pilotd was asked %d times to poll", ROUNDS, asked);
	if (pushed) {
		if (log_count("the kernel keeps poll events") != 1)
			fail("pilotd did not say that the kernel keeps poll events");
		if (asked > ASKED_WITH_PUSH_MAX)
			fail("the kernel asked pilotd %d times in %d rounds, more than %d: it "
			     "does not answer poll from the pushed events", asked, ROUNDS,
			     ASKED_WITH_PUSH_MAX);
	} else {
		if (log_count("the kernel asks pilotd at every poll") != 1)
			fail("pilotd did not say that the kernel asks at every poll");
		if (asked < 2 * ROUNDS)
			fail("the kernel asked pilotd %d times in %d rounds of two polls", asked,
			     ROUNDS);
	}
	return 0;
}
