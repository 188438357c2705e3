// SPDX-License-Identifier: MIT
/*
 * CAP_SYS_ADMIN from /proc/TID/status (core/caps.h): the kernel's own
 * lines as they come, this process's own status, and what a caller could
 * put in the one field it controls (its name).
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "core/caps.h"

#define HEAD "Name:\tpilot-xfer\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t42\nPid:\t42\n"
#define CAPS_ROOT                                                                                  \
	"CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"                                   \
	"CapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n"
#define CAPS_NONE                                                                                  \
	"CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\n"                                   \
	"CapEff:\t0000000000000000\nCapBnd:\t000001ffffffffff\n"

static bool admin(const char *status, uint32_t fsuid)
{
	return caps_status_admin(status, strlen(status), fsuid);
}

static void test_table(void)
{
	static const struct {
		const char *status;
		uint32_t fsuid;
		bool admin;
	} cases[] = {
		{ .status = HEAD "Uid:\t0\t0\t0\t0\n" CAPS_ROOT, .fsuid = 0, .admin = true },
		/* root in a container without CAP_SYS_ADMIN */
		{ .status = HEAD "Uid:\t0\t0\t0\t0\nCapEff:\t00000000a80425fb\n", .fsuid = 0 },
		{ .status = HEAD "Uid:\t1000\t1000\t1000\t1000\n" CAPS_NONE, .fsuid = 1000 },
		/* a user's thread with CAP_SYS_ADMIN only (ambient, file caps) */
		{ .status = HEAD "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000200000\n",
		  .fsuid = 1000,
		  .admin = true },
		/* the thread is not the one that asked (its fsuid differs) */
		{ .status = HEAD "Uid:\t0\t0\t0\t0\n" CAPS_ROOT, .fsuid = 1000 },
		/* missing, cut short or malformed fields */
		{ .status = HEAD CAPS_ROOT, .fsuid = 0 },
		{ .status = HEAD "Uid:\t0\t0\t0\t0\n", .fsuid = 0 },
		{ .status = HEAD "Uid:\t0\t0\t0\t0\nCapEff:\t", .fsuid = 0 },
		{ .status = HEAD "Uid:\t0\t0\t0\nCapEff:\t000001ffffffffff\n", .fsuid = 0 },
		{ .status = HEAD "Uid:\t0\t0\t0\t0\nCapEff:\t0000001ffffffffffff\n", .fsuid = 0 },
		{ .status = HEAD "Uid:\t0\t0\t0\t0\nCapEff:\t00000000002x0000\n", .fsuid = 0 },
		{ .status = HEAD "Uid:\t0\t0\t0\t0\nCapEff:\t0000000000200000 1\n", .fsuid = 0 },
		{ .status = HEAD "Uid:\t99999999999\t0\t0\t0\n" CAPS_ROOT, .fsuid = 0 },
		/* a name cannot forge a field: the kernel escapes its newline, and
		 * a field counts only at the start of a line */
		{ .status = "Name:\tx\\nCapEff:\t000001ffffffffff\nUid:"
			    "\t1000\t1000\t1000\t1000\n" CAPS_NONE,
		  .fsuid = 1000 },
		{ .status = "Name:\tx CapEff:\t000001ffffffffff\nUid:\t1000\t1000\t1000\t1000\n",
		  .fsuid = 1000 },
		{ .status = "", .fsuid = 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (admin(cases[i].status, cases[i].fsuid) != cases[i].admin) {
			fprintf(stderr, "case %zu: expected %d\n", i, cases[i].admin);
			check_failures++;
		}
}

/* The text need not end in NUL: a read that filled the buffer is cut. */
static void test_not_terminated(void)
{
	char buf[256];
	const char *s = HEAD "Uid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n";
	size_t n = strlen(s);

	memcpy(buf, s, n);
	memset(buf + n, 'f', sizeof(buf) - n);
	CHECK(caps_status_admin(buf, n, 0));
	/* CapEff cut short: "000001fffff" would still have bit 21, and a
	 * cut non-admin value could gain it: a line without its newline is none */
	CHECK(!caps_status_admin(buf, n - 6, 0));
	CHECK(caps_status_admin(buf, sizeof(buf), 0)); /* a cut line after it is no matter */
}

/* This very process, as the front reads its callers: it agrees with prctl. */
static void test_own_status(void)
{
	char status[4096];
	int fd = open("/proc/thread-self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, status, sizeof(status));
	int has = prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN) == 1 && geteuid() == 0;

	if (fd >= 0)
		close(fd);
	CHECK(n > 0);
	if (n <= 0)
		return;
	/* root with the usual set has it; anyone else has not */
	CHECK_EQ(caps_status_admin(status, (size_t)n, (uint32_t)getuid()), has);
}

static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size);

	if (fd >= 0)
		close(fd);
	return n;
}

/*
 * A thread in a user namespace of its own has every capability there
 * (unshare -Ur): its status says CAP_SYS_ADMIN, its uid_map tells it
 * apart from pilotd's namespace (the attacker's finding A1).
 */
static void test_user_namespace(void)
{
	static char status[65536], map[4096], own[4096];
	int go[2], ready[2];
	ssize_t n, m, o;
	char path[64], c = 'n';
	pid_t pid;

	CHECK(caps_same_userns("0 0 4294967295\n", 15, "0 0 4294967295\n", 15));
	CHECK(!caps_same_userns("0 65534 1\n", 10, "0 0 4294967295\n", 15));
	CHECK(!caps_same_userns("", 0, "", 0));
	if (pipe(go) < 0 || pipe(ready) < 0) {
		CHECK(false);
		return;
	}
	pid = fork();
	if (pid == 0) {
		c = unshare(CLONE_NEWUSER) == 0 ? 'y' : 'n';
		(void)!write(ready[1], &c, 1);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	CHECK(pid > 0 && read(ready[0], &c, 1) == 1);
	if (c == 'y') {
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		n = slurp(path, status, sizeof(status));
		snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
		m = slurp(path, map, sizeof(map));
		o = slurp("/proc/self/uid_map", own, sizeof(own));
		/* its status alone would pass: Uid as seen from here, CapEff as there */
		CHECK(n > 0 && caps_status_admin(status, (size_t)n, (uint32_t)getuid()));
		CHECK(m >= 0 && o > 0 && !caps_same_userns(map, (size_t)m, own, (size_t)o));
	} else {
		fprintf(stderr, "test_caps: no user namespace here; that case not run\n");
		CHECK(!getenv("CI")); /* CI can make one: there it must run */
	}
	(void)!write(go[1], "x", 1);
	waitpid(pid, NULL, 0);
}

/*
 * A namespace's id (its share of pilotd's bounds): SipHash-2-4, checked
 * against the paper's vectors (key 00..0f, message 00..len-1), and never
 * the ids port.h keeps for pilotd's own namespace and unseen callers.
 */
static void test_userns_id(void)
{
	static const struct {
		size_t len;
		uint64_t hash;
	} vectors[] = {
		{ 0, 0x726fdb47dd0e0e31ull },
		{ 1, 0x74f839c593dc67fdull },
		{ 8, 0x93f5f5799a932462ull },
		{ 15, 0xa129ca6149be45e5ull },
	};
	uint8_t key[16], m[16], other[16] = { 1 };

	for (int i = 0; i < 16; i++)
		key[i] = m[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		CHECK_EQ(caps_siphash(m, vectors[i].len, key), vectors[i].hash);
	/* two maps, two ids; one map, another run's key: another id */
	CHECK(caps_userns_id("0 1000 1\n", 9, key) != caps_userns_id("1 1000 1\n", 9, key));
	CHECK(caps_userns_id("0 1000 1\n", 9, key) != caps_userns_id("0 1000 1\n", 9, other));
	CHECK(caps_userns_id("0 1000 1\n", 9, key) == caps_userns_id("0 1000 1\n", 9, key));
	CHECK(caps_userns_id("", 0, key) >= 2);
}

/*
 * Which namespace a request counts in: its thread's uid_map, but only when
 * the thread calls with its own credentials.  An io_uring personality
 * registered in a user namespace as a subordinate kuid (100001) runs in
 * its submitter's thread or io-wq worker, whose uid_map and Uid line are
 * the submitter's (host map, uid 1000): it is unseen, not one of pilotd's
 * own users with a quarter of its own for each such kuid (measured on
 * Linux 6.18: the worker blocked in an open made with a personality of
 * kuid 100001 showed "0 0 4294967295" and "Uid: 1000 1000 1000 1000").
 */
static void test_caller_userns(void)
{
	static const char host[] = "         0          0 4294967295\n";
	static const char sandbox[] = "         0     100000      65536\n";
	static const char st1000[] = HEAD "Uid:\t1000\t1000\t1000\t1000\n" CAPS_NONE;
	static const char st100001[] = HEAD "Uid:\t100001\t100001\t100001\t100001\n" CAPS_NONE;
	const size_t hl = sizeof(host) - 1, sl = sizeof(sandbox) - 1;

	CHECK_EQ(caps_caller_userns(host, hl, host, hl, st1000, strlen(st1000), 1000),
		 CAPS_USERNS_OWN);
	CHECK_EQ(caps_caller_userns(sandbox, sl, host, hl, st100001, strlen(st100001), 100001),
		 CAPS_USERNS_OTHER);
	/* the personality in the host submitter's thread */
	CHECK_EQ(caps_caller_userns(host, hl, host, hl, st1000, strlen(st1000), 100001),
		 CAPS_USERNS_UNSEEN);
	CHECK_EQ(caps_caller_userns(sandbox, sl, host, hl, st100001, strlen(st100001), 1000),
		 CAPS_USERNS_UNSEEN);
	/* no Uid line, or one cut short: nobody's namespace */
	CHECK_EQ(caps_caller_userns(host, hl, host, hl, HEAD, strlen(HEAD), 1000),
		 CAPS_USERNS_UNSEEN);
	CHECK_EQ(caps_caller_userns(host, hl, host, hl, st1000, strlen(HEAD) + 12, 1000),
		 CAPS_USERNS_UNSEEN);
}

int main(void)
{
	test_caller_userns();
	test_userns_id();
	test_table();
	test_not_terminated();
	test_own_status();
	test_user_namespace();
	return check_result("test_caps");
}
