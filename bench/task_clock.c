// SPDX-License-Identifier: MIT
/*
 * task-clock: the CPU time a running process (all its threads) spends
 * while a command runs, from the kernel's task-clock software counter.
 *
 *   task-clock PID COMMAND [ARG]...
 *
 * Runs COMMAND, then prints "TASK-CLOCK threads=N task_ns=NS cs=N
 * command_ns=NS" (PID's time on a CPU and its context switches, and
 * COMMAND's time with its children's) on stderr; exits with COMMAND's
 * status.  Under QEMU's -icount shift=0 the guest's clock advances one
 * nanosecond per instruction while it runs, so task_ns counts the
 * process's instructions, user and kernel: a figure the host's load does
 * not change (bench/per-packet).
 */
#include <dirent.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS_MAX 64

static int open_counter(int tid, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.inherit = tid == 0; /* this process: the command forked after it */
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
}

/* A task-clock and a context-switch counter on each thread of pid. */
static int open_counters(const char *pid, int fds[][2])
{
	char path[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < THREADS_MAX) {
		if (e->d_name[0] == '.')
			continue;
		fds[n][0] = open_counter(atoi(e->d_name), PERF_COUNT_SW_TASK_CLOCK);
		fds[n][1] = open_counter(atoi(e->d_name), PERF_COUNT_SW_CONTEXT_SWITCHES);
		if (fds[n][0] < 0 || fds[n][1] < 0)
			break;
		n++;
	}
	closedir(d);
	return e ? -1 : n;
}

int main(int argc, char **argv)
{
	int fds[THREADS_MAX][2], n, st = 0, self;
	unsigned long long sum[2] = { 0, 0 }, command = 0;
	uint64_t v;
	pid_t child;

	if (argc < 3) {
		fprintf(stderr, "usage: task-clock PID COMMAND [ARG]...\n");
		return 2;
	}
	n = open_counters(argv[1], fds);
	if (n < 0) {
		perror("task-clock: perf_event_open");
		return 1;
	}
	self = open_counter(0, PERF_COUNT_SW_TASK_CLOCK);
	if (self < 0) {
		perror("task-clock: perf_event_open");
		return 1;
	}
	child = fork();
	if (child == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (child < 0 || waitpid(child, &st, 0) < 0)
		return 1;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 2; k++)
			if (read(fds[i][k], &v, sizeof(v)) == sizeof(v))
				sum[k] += v;
	if (read(self, &v, sizeof(v)) == sizeof(v))
		command = v;
	fprintf(stderr, "TASK-CLOCK threads=%d task_ns=%llu cs=%llu command_ns=%llu\n", n, sum[0],
		sum[1], command);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
