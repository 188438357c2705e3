// SPDX-License-Identifier: MIT
/*
 * A read blocked on /dev/pilot is ended by a signal: SIGKILL ends the
 * process within a second, and a SIGALRM without SA_RESTART makes read()
 * fail with EINTR.  Bytes the Palm sends afterwards reach the next read:
 * the interrupted read took none of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib.h"
#include "testpattern.h"

#define KILL_BOUND_S 1.0

static void sigkill_ends_blocked_reader(void)
{
	int sync_pipe[2], status;
	pid_t pid;
	char c;
	double t0, dt;

	if (pipe(sync_pipe) < 0)
		fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		int fd = open(PILOT_DEV, O_RDWR);
		char b[16];

		if (write(sync_pipe[1], "r", 1) != 1 || fd < 0)
			_exit(3);
		read(fd, b, sizeof(b)); /* blocks: the Palm is holding */
		_exit(2);
	}
	if (read(sync_pipe[0], &c, 1) != 1)
		fail("child died before reading");
	wait_sleeping(pid, pid);
	usleep(200000);
	t0 = now_s();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	dt = now_s() - t0;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		fail("the blocked reader did not die of SIGKILL (status 0x%x)", status);
	if (dt > KILL_BOUND_S)
		fail("the blocked reader took %.2f s to die of SIGKILL (bound %.1f s)", dt,
		     KILL_BOUND_S);
	note("a reader blocked on /dev/pilot died of SIGKILL in %.1f ms", dt * 1000);
	close(sync_pipe[0]);
	close(sync_pipe[1]);
}

static void on_alarm(int sig)
{
}

static void sigalrm_interrupts_read(void)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = 0 };
	uint8_t buf[64], expect[16];
	struct testpattern tp;
	int fd = open(PILOT_DEV, O_RDWR);
	double t0, dt;
	ssize_t r;

	if (fd < 0)
		fail("open: %s", strerror(errno));
	set_raw(fd);
	sigaction(SIGALRM, &sa, NULL);
	t0 = now_s();
	alarm(1);
	r = read(fd, buf, sizeof(buf));
	dt = now_s() - t0;
	if (r != -1 || errno != EINTR)
		fail("read returned %zd (%s), expected -1 EINTR", r, r < 0 ? strerror(errno) : "");
	if (dt < 0.5 || dt > 10)
		fail("read returned EINTR after %.2f s; the alarm was set for 1 s", dt);
	note("SIGALRM ended a blocked read with EINTR after %.2f s", dt);

	testpattern_init(&tp, 6);
	testpattern_fill(&tp, expect, sizeof(expect));
	palm("send-pattern 6 %zu", sizeof(expect));
	palm("release");
	if (read_full(fd, buf, sizeof(expect)) != sizeof(expect) ||
	    memcmp(buf, expect, sizeof(expect)) != 0)
		fail("bytes sent after the interrupt did not reach the next read intact");
	note("bytes sent after the interrupt reached the next read");
	close(fd);
}

int main(void)
{
	guest_test_name("signals");
	palm("mode hold");
	palm("reset-stats");
	sigkill_ends_blocked_reader();
	sigalrm_interrupts_read();
	return 0;
}
