// SPDX-License-Identifier: MIT
/* The sync command: see command.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "command.h"

int sync_read_command(const char *path, char *buf, size_t size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	FILE *f;
	int r = -ENOENT;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	while (fgets(buf, (int)size, f)) {
		size_t n = strcspn(buf, "\n");
		const char *s = buf + strspn(buf, " \t");
		bool whole = buf[n] == '\n' || feof(f);

		buf[n] = '\0';
		if (!whole) { /* longer than buf: the rest of it is next */
			r = -E2BIG;
			break;
		}
		if (*s && *s != '#') {
			r = 0;
			break;
		}
	}
	fclose(f);
	return r;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Wait for pid's end for at most ms (-1: no limit): true if it ended. */
static bool ended_within(int pidfd, int ms)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int left = ms < 0 ? -1 : ms - (int)(seconds_since(&t0) * 1000);
		int n;

		if (ms >= 0 && left < 0)
			left = 0;
		n = poll(&p, 1, left);
		if (n > 0)
			return true;
		if (n == 0 || errno != EINTR)
			return false;
	}
}

/* The running command's process group, for forward(). */
static volatile sig_atomic_t command_group;

/* pilotd-sync is told to stop (SIGTERM, SIGHUP; SIGINT from a terminal
 * that is not the command's): the command is told too, then pilotd-sync
 * goes (SA_RESETHAND: the signal's default, once the handler returns). */
static void forward(int sig)
{
	if (command_group > 0)
		kill(-(pid_t)command_group, sig);
	raise(sig);
}

static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP };

/*
 * The terminal's foreground to group, as a shell's job control does: only
 * when pilotd-sync has it (run in a terminal, not in the background).
 */
static void give_terminal(bool foreground, pid_t group)
{
	void (*old)(int);

	if (!foreground)
		return;
	old = signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(STDIN_FILENO, group);
	signal(SIGTTOU, old);
}

int sync_run_command(const char *command, const char *device, const struct sync_limits *lim,
		     struct sync_result *res)
{
	struct sigaction sa = { .sa_handler = forward, .sa_flags = SA_RESETHAND }, old[3];
	bool foreground = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	sigset_t stop, mask;
	struct timespec t0;
	int status, pidfd, r;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fflush(stdout);
	fflush(stderr);
	/*
	 * A stop that comes between the fork and forward()'s installation
	 * waits for it, so the command is told too: blocked until then
	 */
	sigemptyset(&stop);
	for (int i = 0; i < 3; i++)
		sigaddset(&stop, forwarded[i]);
	sigprocmask(SIG_BLOCK, &stop, &mask);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		sigprocmask(SIG_SETMASK, &mask, NULL);
		return r;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &mask, NULL);
		/* a group of its own: the limit ends all of it; a terminal's
		 * Ctrl-C goes to it, not to pilotd-sync */
		setpgid(0, 0);
		give_terminal(foreground, getpid());
		setenv("PILOTPORT", device, 1);
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid); /* also here: whichever runs first */
	command_group = pid;
	for (int i = 0; i < 3; i++)
		sigaction(forwarded[i], &sa, &old[i]);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	*res = (struct sync_result){ 0 };
	/* pidfd_open (Linux 5.3): without it, no limit */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (lim->run_ms && pidfd >= 0 && !ended_within(pidfd, (int)lim->run_ms)) {
		res->timed_out = true;
		kill(-pid, SIGTERM);
		if (!ended_within(pidfd, (int)lim->kill_ms))
			kill(-pid, SIGKILL);
	}
	if (pidfd >= 0)
		close(pidfd);
	while ((r = waitpid(pid, &status, 0) < 0 ? -errno : 0) == -EINTR)
		;
	if (res->timed_out) /* what it left in its group goes with it */
		kill(-pid, SIGKILL);
	for (int i = 0; i < 3; i++)
		sigaction(forwarded[i], &old[i], NULL);
	command_group = 0;
	give_terminal(foreground, getpgrp());
	if (r < 0)
		return r;
	res->seconds = seconds_since(&t0);
	res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	res->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	return 0;
}
