// SPDX-License-Identifier: MIT
/*
 * An aio poll on a closed /dev/pilot file cannot hang pilotd (issue 38;
 * kernel-patches/poll-events).  What any user who may open /dev/pilot can
 * do: open it, poll it once (pilotd pushes its events from then on),
 * submit a Linux AIO poll for POLLIN (IOCB_CMD_POLL), close the
 * descriptor, so that the aio request holds the file's last reference,
 * and make input arrive (a second file writes "ping", the handheld echoes
 * it).  pilotd pushes POLLIN; the aio poll completes with it.  With the
 * series as it was, the push's keyed wake-up completed the aio poll inside
 * pilotd's own write() to /dev/cuse and dropped the file's last reference
 * there: its release waited for a FUSE_RELEASE only pilotd could answer,
 * and pilotd answered nothing again, unkillable.
 *
 * Passes when the aio poll completed with POLLIN within 5 s and pilotd
 * then answers a new open within 1 s.  When it does not, the test shows
 * pilotd's threads, answers the request pilotd waits for through pilotd's
 * own /dev/cuse descriptor (pidfd_getfd), so that the guest still stops,
 * and fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guestlib.h"

#define OPEN_BOUND_S 1.0

/* Each thread of pilotd: its state and where it waits. */
static void show_threads(pid_t pid)
{
	char path[300], wchan[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan", (int)pid, e->d_name);
		f = fopen(path, "r");
		if (!f || !fgets(wchan, sizeof(wchan), f))
			strcpy(wchan, "?");
		if (f)
			fclose(f);
		note("pilotd %d thread %s: state %c, waits in %s", (int)pid, e->d_name,
		     task_state((int)pid, atoi(e->d_name)), wchan);
	}
	if (d)
		closedir(d);
}

/* pilotd's descriptor of /dev/cuse, or -1. */
static int pilotd_cuse_fd(pid_t pid)
{
	char path[300], target[64];
	struct dirent *e;
	int found = -1;
	ssize_t n;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			if (strcmp(target, "/dev/cuse") == 0)
				found = atoi(e->d_name);
		}
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * Answer, on pilotd's own /dev/cuse file, the request pilotd waits for
 * (a FUSE_RELEASE, opcode 18, that it would have to answer itself).
 */
static void answer_for_pilotd(pid_t pid)
{
	/* /dev/cuse reads fail unless they fit the largest write: libfuse's 1 MiB */
	static char buf[4 << 20];
	struct fuse_in_header in;
	struct fuse_out_header out;
	int pidfd, fd, nr = pilotd_cuse_fd(pid);
	struct pollfd p;
	ssize_t n;

	if (nr < 0) {
		note("pilotd has no /dev/cuse descriptor to answer on");
		return;
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, nr, 0);
	if (fd < 0) {
		note("cannot take pilotd's /dev/cuse descriptor: %s", strerror(errno));
		return;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	n = poll(&p, 1, 2000) == 1 ? read(fd, buf, sizeof(buf)) : -1;
	if (n < (ssize_t)sizeof(in)) {
		note("no request read on pilotd's /dev/cuse: %s",
		     n < 0 ? strerror(errno) : "none");
	} else {
		memcpy(&in, buf, sizeof(in));
		out = (struct fuse_out_header){ .len = sizeof(out), .unique = in.unique };
		note("pilotd waits for its own answer to opcode %u; answered it for pilotd",
		     in.opcode);
		if (write(fd, &out, sizeof(out)) != (ssize_t)sizeof(out))
			note("the answer failed: %s", strerror(errno));
	}
	close(fd);
	close(pidfd);
}

/* A child that opens /dev/pilot and exits 0 if it could. */
static pid_t open_in_child(void)
{
	pid_t child = fork();

	if (child < 0)
		fail("fork: %s", strerror(errno));
	if (child == 0) {
		int fd = open(PILOT_DEV, O_RDWR | O_NOCTTY | O_NONBLOCK);

		_exit(fd >= 0 ? 0 : 1);
	}
	return child;
}

/* Did child exit within bound_s?  Fails if its open failed. */
static bool exited_within(pid_t child, double bound_s)
{
	double deadline = now_s() + bound_s;
	int status;

	do {
		if (waitpid(child, &status, WNOHANG) == child) {
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
				fail("a new open of " PILOT_DEV " failed");
			return true;
		}
		usleep(10000);
	} while (now_s() < deadline);
	return false;
}

int main(void)
{
	struct iocb cb = { .aio_lio_opcode = IOCB_CMD_POLL, .aio_buf = POLLIN };
	struct iocb *cbs[1] = { &cb };
	struct timespec ts = { .tv_sec = 5 };
	aio_context_t ctx = 0;
	struct io_event ev;
	struct pollfd p;
	pid_t pid, child;
	int fd, fd2;
	double t0;
	long got;

	guest_test_name("aio-close");
	pid = find_pilotd();
	palm("mode echo");
	fd = open_attached(O_RDWR | O_NOCTTY | O_NONBLOCK, 20);
	/* the file's first poll: the kernel knows it by kh, pilotd pushes for it */
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 200) != 0)
		fail("a fresh " PILOT_DEV " is readable (revents 0x%x)", p.revents);
	if (syscall(SYS_io_setup, 1, &ctx) < 0)
		fail("io_setup: %s", strerror(errno));
	cb.aio_fildes = (uint32_t)fd;
	if (syscall(SYS_io_submit, ctx, 1, cbs) != 1)
		fail("io_submit of a POLLIN poll: %s", strerror(errno));
	close(fd); /* the aio poll holds the file's last reference */

	fd2 = open_attached(O_RDWR | O_NOCTTY | O_NONBLOCK, 20);
	write_full(fd2, "ping", 4);
	t0 = now_s();
	got = syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts);
	if (got != 1)
		fail("the aio poll did not complete within 5 s of the echo (%ld: %s)", got,
		     got < 0 ? strerror(errno) : "none");
	if (!(ev.res & POLLIN))
		fail("the aio poll completed with 0x%llx, without POLLIN",
		     (unsigned long long)ev.res);
	note("the aio poll completed with 0x%llx after %.2f s", (unsigned long long)ev.res,
	     now_s() - t0);

	t0 = now_s();
	child = open_in_child();
	if (!exited_within(child, OPEN_BOUND_S)) {
		note("a new open got no answer within %.1f s", OPEN_BOUND_S);
		show_threads(pid);
		answer_for_pilotd(pid);
		if (!exited_within(child, 5))
			kill(child, SIGKILL);
		fail("pilotd hung in the release of the file the aio poll held");
	}
	note("pilotd answered a new open in %.3f s", now_s() - t0);
	close(fd2);
	syscall(SYS_io_destroy, ctx);
	return 0;
}
