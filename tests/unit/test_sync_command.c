// SPDX-License-Identifier: MIT
/*
 * pilotd-sync's command (pilotd/sync/command.c), read from a real file
 * and run by a real /bin/sh: the first line that counts; a line too long
 * for the buffer is never run cut short; a FIFO in the file's place does
 * not hold pilotd-sync in open(2); the exit status and the signal; a
 * command that never ends is stopped at its limit, with what it started
 * in its group, and one that ignores SIGTERM is killed after the grace;
 * pilotd-sync told to stop tells its command; run in a terminal, the
 * command has the terminal's foreground.
 */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "command.h"

static char dir[] = "/tmp/test_sync_command.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static void test_read(void)
{
	char buf[64], path[256], big[200];

	CHECK_EQ(sync_read_command(write_file("a", "# comment\n\n   \n  pilot-xfer -l\nnext\n"),
				   buf, sizeof(buf)),
		 0);
	CHECK(strcmp(buf, "  pilot-xfer -l") == 0);
	CHECK_EQ(sync_read_command(write_file("b", "# only a comment\n"), buf, sizeof(buf)),
		 -ENOENT);
	CHECK_EQ(sync_read_command(write_file("c", "pilot-xfer -l"), buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "pilot-xfer -l") == 0); /* no newline at the end */
	/* a line longer than the buffer: not its first 63 bytes as a command */
	memset(big, 'x', sizeof(big));
	memcpy(big, "rm -rf ~/palm/", 14);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	CHECK_EQ(sync_read_command(write_file("d", big), buf, sizeof(buf)), -E2BIG);
	/* a long comment does not count, nor is it taken for a command */
	big[0] = '#';
	CHECK_EQ(sync_read_command(write_file("e", big), buf, sizeof(buf)), -E2BIG);
	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK_EQ(sync_read_command(path, buf, sizeof(buf)), -ENOENT);
	/* a FIFO nobody writes: refused at once, not waited in */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0);
	alarm(10); /* before the fix: held in fopen() until then */
	CHECK_EQ(sync_read_command(path, buf, sizeof(buf)), -EINVAL);
	alarm(0);
	unlink(path);
}

static void test_run(void)
{
	const struct sync_limits none = { 0 }, quick = { .run_ms = 300, .kill_ms = 300 },
				 roomy = { .run_ms = 30000, .kill_ms = 300 };
	struct sync_result res;
	char cmd[400], path[256];

	CHECK_EQ(sync_run_command("exit 3", "/dev/pilot", &none, &res), 0);
	CHECK_EQ(res.exit_status, 3);
	CHECK(!res.signal && !res.timed_out);
	CHECK_EQ(
		sync_run_command("test \"$PILOTPORT\" = /dev/pilot-x", "/dev/pilot-x", &none, &res),
		0);
	CHECK_EQ(res.exit_status, 0);
	CHECK_EQ(sync_run_command("kill -USR1 $$", "/dev/pilot", &none, &res), 0);
	CHECK_EQ(res.signal, SIGUSR1);

	/* never ends: stopped at the limit with SIGTERM, the sleep it started
	 * in the background too (its group) */
	snprintf(path, sizeof(path), "%s/left", dir);
	snprintf(cmd, sizeof(cmd), "(sleep 2; touch %s) & sleep 30", path);
	CHECK_EQ(sync_run_command(cmd, "/dev/pilot", &quick, &res), 0);
	CHECK(res.timed_out);
	CHECK_EQ(res.signal, SIGTERM);
	CHECK(res.seconds >= 0.25 && res.seconds < 5);
	sleep(3);
	CHECK(access(path, F_OK) < 0); /* the background one went with it */

	/* ignores SIGTERM: SIGKILL after the grace */
	CHECK_EQ(sync_run_command("trap '' TERM; while :; do sleep 1; done", "/dev/pilot", &quick,
				  &res),
		 0);
	CHECK(res.timed_out);
	CHECK_EQ(res.signal, SIGKILL);
	CHECK(res.seconds >= 0.5 && res.seconds < 5);

	/* within its limit (a loose one: /bin/sh may start slowly on a busy
	 * machine): untouched */
	CHECK_EQ(sync_run_command("sleep 0.05; exit 4", "/dev/pilot", &roomy, &res), 0);
	CHECK(!res.timed_out);
	CHECK_EQ(res.exit_status, 4);
}

/* pilotd-sync told to stop (systemctl stop, kill): its command is told too. */
static void test_stop_forwarded(void)
{
	const struct sync_limits none = { 0 };
	char cmd[600], started[256], path[256];
	int status;
	pid_t waiter;

	snprintf(started, sizeof(started), "%s/started", dir);
	snprintf(path, sizeof(path), "%s/after-stop", dir);
	snprintf(cmd, sizeof(cmd), "touch %s; sleep 2; touch %s", started, path);
	waiter = fork();
	CHECK(waiter >= 0);
	if (waiter == 0) {
		struct sync_result res;

		sync_run_command(cmd, "/dev/pilot", &none, &res);
		_exit(0);
	}
	/*
	 * The command runs: a SIGTERM now may come before pilotd-sync's
	 * handlers are in place after its fork, and is held until they are
	 */
	for (int i = 0; i < 1000 && access(started, F_OK) < 0; i++)
		usleep(10 * 1000);
	CHECK(kill(waiter, SIGTERM) == 0);
	CHECK(waitpid(waiter, &status, 0) == waiter);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	sleep(3);
	CHECK(access(path, F_OK) < 0); /* the command did not outlive it */
}

/*
 * Run in a terminal (its own pty here): the command, in its own process
 * group, is given the terminal's foreground, so it can read from it (a
 * background group would be stopped by SIGTTIN), and pilotd-sync has it
 * back after.
 */
static void test_terminal(void)
{
	const struct sync_limits lim = { .run_ms = 10000, .kill_ms = 300 };
	int master, status;
	pid_t child = forkpty(&master, NULL, NULL, NULL);

	CHECK(child >= 0);
	if (child == 0) {
		struct sync_result res;
		int ok = sync_run_command("read answer && test \"$answer\" = yes", "/dev/pilot",
					  &lim, &res) == 0 &&
			 !res.timed_out && res.exit_status == 0 && !res.signal &&
			 tcgetpgrp(STDIN_FILENO) == getpgrp();

		_exit(ok ? 0 : 1);
	}
	CHECK(write(master, "yes\n", 4) == 4);
	for (;;) { /* the pty's echo, until the child is done */
		char buf[256];

		if (read(master, buf, sizeof(buf)) <= 0)
			break;
	}
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(master);
}

int main(void)
{
	char cleanup[300];

	CHECK(mkdtemp(dir) != NULL);
	test_read();
	test_run();
	test_stop_forwarded();
	test_terminal();
	snprintf(cleanup, sizeof(cleanup), "rm -rf '%s'", dir);
	CHECK(system(cleanup) == 0);
	return check_result("test_sync_command");
}
