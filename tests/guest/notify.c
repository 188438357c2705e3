// SPDX-License-Identifier: MIT
/*
 * Readiness for a Type=notify unit, as systemd would see it: this program
 * plays the service manager's notification socket ($NOTIFY_SOCKET, the
 * sd_notify(3) protocol), starts pilotd, and checks that READY=1 comes
 * from pilotd's own pid once /dev/pilot exists, and STOPPING=1 on SIGTERM
 * before it exits 0.  The guest runs without the usual pilotd.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib.h"

#define SOCK_PATH "/run/notify.sock"

/* The next datagram within 10 s; its sender's pid in *from. */
static const char *next_message(int s, pid_t *from)
{
	static char msg[4096];
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct pollfd p = { .fd = s, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, 10000) != 1)
		return NULL;
	n = recvmsg(s, &mh, 0);
	if (n < 0)
		fail("recvmsg: %s", strerror(errno));
	msg[n] = '\0';
	*from = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
			*from = ((struct ucred *)(void *)CMSG_DATA(c))->pid;
	return msg;
}

static bool has_line(const char *msg, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = msg; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

int main(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = SOCK_PATH };
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1, status;
	const char *msg;
	struct stat st;
	pid_t pid, from;

	guest_test_name("notify");
	unlink(SOCK_PATH);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
		fail("notification socket: %s", strerror(errno));
	if (stat(PILOT_DEV, &st) == 0)
		fail(PILOT_DEV " exists before pilotd started");
	setenv("NOTIFY_SOCKET", SOCK_PATH, 1);
	pid = fork();
	if (pid == 0) {
		execlp("pilotd", "pilotd", (char *)NULL);
		_exit(127);
	}
	do {
		msg = next_message(s, &from);
		if (!msg)
			fail("no READY=1 from pilotd within 10 s");
	} while (!has_line(msg, "READY=1"));
	if (stat(PILOT_DEV, &st) < 0 || !S_ISCHR(st.st_mode))
		fail("READY=1 came, but " PILOT_DEV " is not there (%s)", strerror(errno));
	if (from != pid)
		fail("READY=1 came from pid %d, pilotd is %d", (int)from, (int)pid);
	note("READY=1 from pilotd (pid %d) with " PILOT_DEV " in place: '%s'", (int)pid, msg);

	kill(pid, SIGTERM);
	do {
		msg = next_message(s, &from);
		if (!msg)
			fail("no STOPPING=1 within 10 s of SIGTERM");
	} while (!has_line(msg, "STOPPING=1"));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("pilotd did not exit 0 after SIGTERM (status 0x%x)", status);
	note("STOPPING=1, then exit 0");
	return 0;
}
