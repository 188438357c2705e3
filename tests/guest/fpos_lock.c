// SPDX-License-Identifier: MIT
/*
 * The regression behind kernel commit 10dce8af3422, shown on a FUSE
 * regular file (fixtures/seekfs): with a read blocked in one thread, a
 * write on the same fd from a second thread
 *   - stays blocked on the file's f_pos_lock when open said NONSEEKABLE,
 *   - completes at once when open said STREAM.
 * Character devices never take f_pos_lock, so this is where the flag shows.
 *
 *   fpos-lock --open-flags nonseekable|stream MOUNTPOINT
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guestlib.h"

#define BLOCKED_FOR_S	 2.0 /* how long a blocked write must stay blocked */
#define COMPLETE_BOUND_S 2.0

static int fd;
static atomic_int read_done, write_done;

static void *reader(void *arg)
{
	char c;

	if (read(fd, &c, 1) != 1)
		fail("read on the FUSE file: %s", strerror(errno));
	atomic_store(&read_done, 1);
	return NULL;
}

static void *writer(void *arg)
{
	if (write(fd, "w", 1) != 1)
		fail("write on the FUSE file: %s", strerror(errno));
	atomic_store(&write_done, 1);
	return NULL;
}

static pid_t start_seekfs(const char *flags, const char *mnt)
{
	char path[256];
	double deadline = now_s() + 10;
	struct stat st;
	pid_t pid;

	mkdir(mnt, 0755);
	pid = fork();
	if (pid == 0) {
		execlp("seekfs", "seekfs", "--open-flags", flags, mnt, (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "%s/parked", mnt);
	while (stat(path, &st) != 0) {
		if (now_s() > deadline || waitpid(pid, NULL, WNOHANG) == pid)
			fail("seekfs did not come up on %s", mnt);
		usleep(10000);
	}
	return pid;
}

static long parked_reads(const char *mnt)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/parked", mnt);
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static bool wait_flag(atomic_int *flag, double timeout_s)
{
	double deadline = now_s() + timeout_s;

	while (!atomic_load(flag) && now_s() < deadline)
		usleep(5000);
	return atomic_load(flag);
}

int main(int argc, char **argv)
{
	char path[256];
	pthread_t rt, wt;
	double deadline, t0;
	bool stream;
	pid_t fs;
	int rel;

	guest_test_name("fpos-lock");
	if (argc != 4 || strcmp(argv[1], "--open-flags") != 0 ||
	    (strcmp(argv[2], "stream") != 0 && strcmp(argv[2], "nonseekable") != 0))
		fail("usage: fpos-lock --open-flags nonseekable|stream MOUNTPOINT");
	stream = strcmp(argv[2], "stream") == 0;
	fs = start_seekfs(argv[2], argv[3]);

	snprintf(path, sizeof(path), "%s/stream", argv[3]);
	fd = open(path, O_RDWR);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	pthread_create(&rt, NULL, reader, NULL);
	deadline = now_s() + 10;
	while (parked_reads(argv[3]) != 1)
		if (now_s() > deadline)
			fail("the read never reached seekfs");

	t0 = now_s();
	pthread_create(&wt, NULL, writer, NULL);
	if (stream) {
		if (!wait_flag(&write_done, COMPLETE_BOUND_S))
			fail("with FOPEN_STREAM the write is still blocked after %.0f s",
			     COMPLETE_BOUND_S);
		note("FOPEN_STREAM: write completed in %.1f ms beside a blocked read",
		     (now_s() - t0) * 1000);
	} else {
		if (wait_flag(&write_done, BLOCKED_FOR_S))
			fail("with FOPEN_NONSEEKABLE the write completed beside a blocked read; "
			     "f_pos_lock should have held it");
		note("FOPEN_NONSEEKABLE: write still blocked after %.0f s (f_pos_lock)",
		     BLOCKED_FOR_S);
	}
	if (atomic_load(&read_done))
		fail("the read returned before it was released");

	snprintf(path, sizeof(path), "%s/release", argv[3]);
	rel = open(path, O_WRONLY);
	if (rel < 0 || write(rel, "x", 1) != 1)
		fail("cannot release the parked read: %s", strerror(errno));
	close(rel);
	if (!wait_flag(&read_done, 10) || !wait_flag(&write_done, 10))
		fail("read or write still blocked 10 s after the read was released");
	pthread_join(rt, NULL);
	pthread_join(wt, NULL);
	close(fd);
	kill(fs, SIGTERM);
	waitpid(fs, NULL, 0);
	umount2(argv[3], MNT_DETACH);
	note("ok");
	return 0;
}
