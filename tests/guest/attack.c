// SPDX-License-Identifier: MIT
/*
 * attack: a local user in group dialout mounts issue 17's attacks on
 * /dev/pilot, and pilotd answers each at its bound (pilotd/core/port.h,
 * docs/design.md "Bounds") and stays small:
 *
 * Every bound below is one user's: a quarter of pilotd's (port.h
 * "Bounds"), as the attacker has no CAP_SYS_ADMIN; all of it for root.
 *
 *   opens    1000 opens: at most PORT_FILES_MAX files are open at once,
 *            every other open fails with ENFILE, none waits
 *   ioctls   random ioctl numbers with random arguments (NULL, unmapped,
 *            read-only, kernel and wild addresses): each call returns an
 *            error or a result at once; one that waits by design (a
 *            drain, a modem-line wait) ends with EINTR at a signal
 *   tcooff   TCXONC TCOOFF, a write, then close: the next user's output
 *            goes out, after the attacker's
 *   writers  2000 threads each block in write() of up to 128 KiB while the
 *            handheld takes nothing: at most PORT_PARKED_MAX writes of
 *            PORT_PARKED_WRITE_BYTES in all wait, every other fails with
 *            ENOBUFS (here the writes are small once the queues are full,
 *            so the bound on requests is met; in "all" the one on bytes);
 *            after the kill an open (O_NONBLOCK too) waits for the closing wait
 *            (PORT_CLOSING_WAIT_MS) and no longer
 *   all      all of them at once
 *
 * Each attack runs in a child process as the user (--user, default palm),
 * killed with SIGKILL once it is mounted.  pilotd's VmRSS (and the peak
 * of VmRSS sampled every 20 ms), VmHWM and Threads are printed during and
 * after each attack, and the test fails when VmHWM ends above the bound.
 *
 * The simulated Palm is put in echo mode: with nobody reading /dev/pilot
 * it stops taking bytes once its echo buffer and pilotd's queues are full.
 * Run as root (it switches users and steers the Palm), with a handheld
 * attached:  attack [--user NAME] [--hwm-max KIB] [ATTACK]...
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/port.h" /* with the kernel's termios, as pilotd has it */
#include "guestlib.h"
#include "testpattern.h"

#define OPENS	      1000
#define WRITERS	      2000
#define IOCTLS	      3000
#define WRITE_MAX     (128u * 1024) /* the kernel's largest CUSE write */

/* One user holds a quarter of each bound; root, with CAP_SYS_ADMIN, all of it. */
static unsigned int quarter = 4;
#define WRITER_STACK  (64u * 1024)
#define WRITER_FDS    16   /* the writers share these files */
#define CALL_BOUND_S  10.0 /* a refused call or an interrupted wait returns within this */
#define WAIT_SIGNAL_S 0.2  /* a call that waits is interrupted after this */
#define QUIET_S	      3.0  /* the writers are settled: none returned for this long */
/*
 * The writers' 2000 requests reach pilotd at once and are answered one
 * after another, so the last refusal waits for the requests ahead of it,
 * not for anything it could be parked on: 3-5 s usually, 13.1 s under
 * ASan with the host loaded 12 times over (a clean clone of 0a02c20).  A
 * refusal parked until some later event would not come at all.
 */
#define REFUSAL_BOUND_S 60.0
#define FILL_WAIT_S   1.0  /* a write that takes longer waits at a full queue */
#define KILL_BOUND_S  10.0
#define SAMPLE_MS     20
/* The closing wait, and what an open waiting for it may take on top of it. */
#define CLOSING_WAIT_S	(PORT_CLOSING_WAIT_MS / 1000.0)
#define CLOSING_SLACK_S 10.0

struct options {
	const char *user;
	long hwm_max_kb; /* 0: by the build of pilotd */
	int opens, writers, ioctls;
};

struct attack {
	const char *name;
	void (*mount)(const struct options *o); /* in the child, as the user */
	void (*after)(void);			/* in the parent, after the kill */
};

static pid_t pilotd;

static void on_signal(int sig)
{
}

/* ---- a per-thread alarm: SIGUSR1 to this thread, to end a call that waits ---- */

static timer_t alarm_new(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	timer_t t;

	ev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &ev, &t) < 0)
		fail("timer_create: %s", strerror(errno));
	return t;
}

static void alarm_set(timer_t t, double s)
{
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)s,
						.tv_nsec = (long)((s - (time_t)s) * 1e9) } };

	timer_settime(t, 0, &its, NULL);
}

/* ---- pilotd's memory ---- */

struct sample {
	long rss_kb, hwm_kb, threads;
};

static struct sample sample_pilotd(void)
{
	struct sample s = {
		.rss_kb = proc_status_kb(pilotd, "VmRSS"),
		.hwm_kb = proc_status_kb(pilotd, "VmHWM"),
		.threads = proc_status_kb(pilotd, "Threads"),
	};

	if (s.rss_kb < 0)
		fail("pilotd (pid %d) is gone", (int)pilotd);
	return s;
}

static long rss_peak_kb;

static void sample_for(double s)
{
	double end = now_s() + s;

	do {
		struct sample now = sample_pilotd();

		if (now.rss_kb > rss_peak_kb)
			rss_peak_kb = now.rss_kb;
		usleep(SAMPLE_MS * 1000);
	} while (now_s() < end);
}

static void report(const char *attack, const char *when)
{
	struct sample s = sample_pilotd();

	if (s.rss_kb > rss_peak_kb)
		rss_peak_kb = s.rss_kb;
	note("%s, %s: pilotd VmRSS %ld kB (sampled peak %ld kB), VmHWM %ld kB, Threads %ld", attack,
	     when, s.rss_kb, rss_peak_kb, s.hwm_kb, s.threads);
}

/* ---- opens ---- */

static int open_fds[OPENS];
static int nopen_fds;

/* Open /dev/pilot n times; each open succeeds or fails with ENFILE at once. */
static void open_many(int n, int already_open)
{
	timer_t t = alarm_new();
	int enfile = 0;
	double slowest = 0;

	for (int i = 0; i < n; i++) {
		double t0 = now_s();
		int fd;

		alarm_set(t, CALL_BOUND_S);
		fd = open(PILOT_DEV, O_RDWR | O_NOCTTY);
		alarm_set(t, 0);
		if (now_s() - t0 > slowest)
			slowest = now_s() - t0;
		if (fd >= 0)
			open_fds[nopen_fds++] = fd;
		else if (errno == ENFILE)
			enfile++;
		else if (errno == EINTR)
			fail("open %d waited %.0f s", i, CALL_BOUND_S);
		else
			fail("open %d: %s, expected success or ENFILE", i, strerror(errno));
	}
	timer_delete(t);
	note("%d opens: %d open (with %d before), %d ENFILE; the slowest took %.1f ms", n,
	     nopen_fds, already_open, enfile, slowest * 1000);
	if (nopen_fds + already_open > (int)(PORT_FILES_MAX / quarter))
		fail("%d files open at once, more than the user's share of PORT_FILES_MAX (%u)",
		     nopen_fds + already_open, PORT_FILES_MAX / quarter);
	if (nopen_fds == 0)
		fail("no open succeeded");
}

static int open_one(void)
{
	int fd = open(PILOT_DEV, O_RDWR | O_NOCTTY);

	if (fd < 0)
		fail("open %s: %s", PILOT_DEV, strerror(errno));
	return fd;
}

static void mount_opens(const struct options *o)
{
	open_many(o->opens, 0);
}

/* ---- junk ioctls ---- */

static const unsigned long tty_cmds[] = {
	TCGETS,	      TCSETS,	    TCSETSW,	  TCSETSF,    TCGETA,	   TCSETA,     TCSETAW,
	TCSETAF,      TCSBRK,	    TCSBRKP,	  TIOCSBRK,   TIOCCBRK,	   TCFLSH,     TCXONC,
	TIOCEXCL,     TIOCNXCL,	    FIONREAD,	  TIOCOUTQ,   TIOCMGET,	   TIOCMSET,   TIOCMBIS,
	TIOCMBIC,     TIOCGICOUNT,  TIOCGWINSZ,	  TIOCSWINSZ, TIOCGSERIAL, TIOCMIWAIT, 0x802c542aUL,
	0x402c542bUL, 0x402c542cUL, 0x402c542dUL, /* TCGETS2, TCSETS2, TCSETSW2, TCSETSF2 */
};

/*
 * The calls that may wait by design: for the output to drain (the tty
 * layer drains before every break but TIOCCBRK), for a modem line.
 */
static bool may_wait(unsigned long cmd)
{
	static const unsigned long waiting[] = {
		TCSETSW, TCSETSF,    TCSETAW,	   TCSETAF,	 TCSBRK,   TIOCSBRK,
		TCSBRKP, TIOCMIWAIT, 0x402c542cUL, 0x402c542dUL,
	};

	for (size_t i = 0; i < sizeof(waiting) / sizeof(waiting[0]); i++)
		if (cmd == waiting[i])
			return true;
	return false;
}

struct storm {
	int fd, rounds;
	unsigned int ok, enotty, efault, einval, eintr, enobufs, other;
	int other_errno;
	double slowest;
};

/* Arguments a careless or hostile caller passes. */
static void *junk_arg(uint32_t x, uint8_t *small, uint8_t *big, uint8_t *guard, uint8_t *ro)
{
	void *args[] = {
		NULL,
		small,
		big,
		(void *)16,
		(void *)-1L,
		(void *)(uintptr_t)x,
		guard,				  /* unmapped */
		guard - 1,			  /* one byte before the unmapped page */
		ro,				  /* read-only */
		(void *)0xffff888000000000UL,	  /* the kernel's */
		(void *)((uintptr_t)x << 16 | 7), /* wild */
	};

	return args[(x >> 9) % (sizeof(args) / sizeof(args[0]))];
}

static void *storm_run(void *arg)
{
	struct storm *s = arg;
	static uint8_t big[4096];
	uint8_t small[4];
	uint8_t *pages =
		mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	timer_t t = alarm_new();
	uint32_t x = 17;

	if (pages == MAP_FAILED || mprotect(pages + 4096, 4096, PROT_NONE) < 0 ||
	    mprotect(pages + 8192, 4096, PROT_READ) < 0)
		fail("mmap: %s", strerror(errno));
	for (int i = 0; i < s->rounds; i++) {
		unsigned long cmd;
		double t0, took;
		int r;

		x = x * 1103515245u + 12345u;
		cmd = x & 1 ? tty_cmds[(x >> 1) % (sizeof(tty_cmds) / sizeof(tty_cmds[0]))]
			    : (unsigned long)(x ^ (x << 7));
		t0 = now_s();
		alarm_set(t, WAIT_SIGNAL_S);
		r = ioctl(s->fd, cmd, junk_arg(x, small, big, pages + 4096, pages + 8192));
		alarm_set(t, 0);
		took = now_s() - t0;
		if (took > s->slowest)
			s->slowest = took;
		if (took > CALL_BOUND_S)
			fail("ioctl 0x%lx took %.1f s", cmd, took);
		if (r >= 0)
			s->ok++;
		else if (errno == ENOTTY)
			s->enotty++;
		else if (errno == EFAULT)
			s->efault++;
		else if (errno == EINVAL)
			s->einval++;
		else if (errno == ENOBUFS)
			s->enobufs++;
		else if (errno == EINTR && may_wait(cmd))
			s->eintr++;
		else if (errno == EINTR)
			fail("ioctl 0x%lx waited until a signal", cmd);
		else {
			s->other++;
			s->other_errno = errno;
		}
	}
	timer_delete(t);
	munmap(pages, 3 * 4096);
	return NULL;
}

static void storm_report(const struct storm *s)
{
	note("%d junk ioctls: %u ok, %u ENOTTY, %u EFAULT, %u EINVAL, %u waits ended by a "
	     "signal, %u ENOBUFS, %u other (last: %s); the slowest took %.2f s",
	     s->rounds, s->ok, s->enotty, s->efault, s->einval, s->eintr, s->enobufs, s->other,
	     s->other ? strerror(s->other_errno) : "none", s->slowest);
}

static void mount_ioctls(const struct options *o)
{
	struct storm s = { .fd = open_one(), .rounds = o->ioctls };

	storm_run(&s);
	storm_report(&s);
}

/* ---- stopped output, then close ---- */

#define STOPPED_BYTES 4096

/* Stop the output, write len bytes (they wait in pilotd's queue), close. */
static void tcooff_then_close(int fd, size_t len)
{
	static uint8_t buf[STOPPED_BYTES];

	if (ioctl(fd, TCXONC, TCOOFF) < 0)
		fail("TCXONC TCOOFF: %s", strerror(errno));
	write_full(fd, buf, len);
	close(fd);
}

static void mount_tcooff(const struct options *o)
{
	tcooff_then_close(open_one(), STOPPED_BYTES);
	note("TCXONC TCOOFF, %d bytes written, closed", STOPPED_BYTES);
}

/* Another user (root) opens: its output goes out within the bound. */
static void next_output_flows(const char *attack)
{
	uint8_t buf[STOPPED_BYTES];
	struct testpattern tp;
	timer_t t = alarm_new();
	double t0 = now_s();
	int fd, r;

	alarm_set(t, CALL_BOUND_S);
	fd = open(PILOT_DEV, O_RDWR | O_NOCTTY);
	if (fd < 0)
		fail("after %s: open: %s", attack, strerror(errno));
	testpattern_init(&tp, 17);
	testpattern_fill(&tp, buf, sizeof(buf));
	write_full(fd, buf, sizeof(buf));
	r = ioctl(fd, TCSBRK, 1); /* tcdrain() */
	alarm_set(t, 0);
	timer_delete(t);
	if (r < 0)
		fail("after %s: tcdrain: %s: the next user's output does not go out", attack,
		     strerror(errno));
	note("after %s: the next user's %zu bytes went out in %.2f s", attack, sizeof(buf),
	     now_s() - t0);
	close(fd);
}

static void after_tcooff(void)
{
	next_output_flows("tcooff");
	/* the attacker's stopped bytes went out at its last close, then the next user's */
	palm_wait_stat("out_bytes", 2 * STOPPED_BYTES, CALL_BOUND_S);
}

/* ---- blocked writers ---- */

struct writer {
	pthread_t thread;
	int fd;
	size_t size;
	atomic_int err; /* -1 while it waits, else 0 or the errno */
	double took;
};

/* page-aligned: a write of 128 KiB is one request, not split at 32 pages */
static const uint8_t write_buf[WRITE_MAX] __attribute__((aligned(4096)));
static struct writer *writers;
static atomic_int writers_returned;

static void *writer_run(void *arg)
{
	struct writer *w = arg;
	double t0 = now_s();
	ssize_t r = write(w->fd, write_buf, w->size);

	w->took = now_s() - t0;
	atomic_store(&w->err, r < 0 ? errno : 0);
	atomic_fetch_add(&writers_returned, 1);
	return NULL;
}

static void start_writer(int i, const pthread_attr_t *attr, int fd, size_t size)
{
	struct writer *w = &writers[i];
	int r;

	w->fd = fd;
	w->size = size;
	atomic_store(&w->err, -1);
	r = pthread_create(&w->thread, attr, writer_run, w);
	if (r)
		fail("writer thread %d: %s", i, strerror(r));
}

/* Did the writers started so far all return within s? */
static bool all_returned_within(int started, double s)
{
	double end = now_s() + s;

	while (atomic_load(&writers_returned) < started)
		if (now_s() > end)
			return false;
		else
			usleep(10000);
	return true;
}

/*
 * n writers on nfds files.  With fill_first, 128 KiB writes one at a
 * time until one waits (the handheld's buffer and pilotd's queues are
 * full), then writes of a few bytes, so that the bound on waiting
 * requests is met; then, as without fill_first, sizes up to 128 KiB,
 * every other one a few bytes, which meet the bound on bytes first.
 */
static void start_writers(int n, const int *fds, int nfds, bool fill_first)
{
	pthread_attr_t attr;
	uint32_t x = 2026;
	int i = 0, small_until = 0;

	writers = calloc((size_t)n, sizeof(*writers));
	if (!writers)
		fail("out of memory");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WRITER_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (fill_first) {
		while (i < n) {
			start_writer(i, &attr, fds[i % nfds], WRITE_MAX);
			if (!all_returned_within(++i, FILL_WAIT_S))
				break;
		}
		note("%d writes of %u bytes until one waits", i, WRITE_MAX);
		small_until = i + (n - i) / 2;
	}
	for (; i < n; i++) {
		bool small = i < small_until || i % 2;

		x = x * 1103515245u + 12345u;
		start_writer(i, &attr, fds[i % nfds],
			     1 + (small ? (x >> 8) % 64 : (x >> 8) % WRITE_MAX));
	}
	pthread_attr_destroy(&attr);
}

/* Wait until no writer returned for QUIET_S; then check what waits. */
static void settle_writers(int n, double t0)
{
	int last = -1, enobufs = 0, written = 0, waiting = 0;
	size_t waiting_bytes = 0, written_bytes = 0;
	double quiet_since = now_s(), slowest_refusal = 0;

	while (now_s() - quiet_since < QUIET_S) {
		int now = atomic_load(&writers_returned);

		if (now != last)
			last = now, quiet_since = now_s();
		usleep(100000);
	}
	for (int i = 0; i < n; i++) {
		const struct writer *w = &writers[i];
		int err = atomic_load(&w->err);

		if (err == -1) {
			waiting++;
			waiting_bytes += w->size;
		} else if (err == 0) {
			written++;
			written_bytes += w->size;
		} else if (err == ENOBUFS) {
			enobufs++;
			if (w->took > slowest_refusal)
				slowest_refusal = w->took;
		} else {
			fail("writer %d: %s, expected to wait or ENOBUFS", i, strerror(err));
		}
	}
	note("%d writers settled in %.1f s: %d wrote %zu bytes, %d wait with %zu bytes, %d "
	     "ENOBUFS (the slowest refusal took %.2f s)",
	     n, now_s() - t0 - QUIET_S, written, written_bytes, waiting, waiting_bytes, enobufs,
	     slowest_refusal);
	if (waiting > (int)(PORT_PARKED_MAX / quarter))
		fail("%d writes wait, more than the user's share of PORT_PARKED_MAX (%u)", waiting,
		     PORT_PARKED_MAX / quarter);
	if (waiting_bytes > PORT_PARKED_WRITE_BYTES / quarter)
		fail("%zu bytes of writes wait, more than the user's share of "
		     "PORT_PARKED_WRITE_BYTES (%u)",
		     waiting_bytes, PORT_PARKED_WRITE_BYTES / quarter);
	if (slowest_refusal > REFUSAL_BOUND_S)
		fail("a refused write took %.1f s", slowest_refusal);
	if (enobufs == 0)
		fail("no write was refused: the handheld took everything?");
}

static void open_writer_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		fds[i] = open_one();
}

static void mount_writers(const struct options *o)
{
	int fds[WRITER_FDS];
	double t0 = now_s();

	open_writer_fds(fds, WRITER_FDS);
	start_writers(o->writers, fds, WRITER_FDS, true);
	settle_writers(o->writers, t0);
}

/*
 * The handheld takes nothing: the last close leaves output unsent, so an
 * open waits for the closing wait, O_NONBLOCK too (tty_open() waits for
 * the closer), then the unsent bytes are discarded.
 */
static void after_writers(void)
{
	double t0 = now_s(), took;
	int fd = open(PILOT_DEV, O_RDWR | O_NOCTTY | O_NONBLOCK);

	took = now_s() - t0;
	if (fd < 0)
		fail("a non-blocking open after the writers: %s, expected it to wait",
		     strerror(errno));
	note("after writers: a non-blocking open waited %.1f s for the closing wait (%.0f s)",
	     took, CLOSING_WAIT_S);
	if (took < CLOSING_WAIT_S / 2)
		fail("the open waited %.1f s: the closing wait did not hold it", took);
	if (took > CLOSING_WAIT_S + CLOSING_SLACK_S)
		fail("the open waited %.1f s, more than the closing wait and %.0f s", took,
		     CLOSING_SLACK_S);
	close(fd);
	palm("reset-stats"); /* the handheld takes its held packets, then reads again */
	next_output_flows("writers");
}

/* ---- all at once ---- */

static void mount_all(const struct options *o)
{
	int fds[WRITER_FDS / 2], stopped = open_one();
	/* fewer: with the queue full, every drain waits until the signal */
	struct storm s = { .fd = open_one(), .rounds = o->ioctls / 3 + 1 };
	pthread_t storm_thread;
	double t0 = now_s();
	int r;

	open_writer_fds(fds, WRITER_FDS / 2);
	open_many(o->opens, WRITER_FDS / 2 + 2);
	r = pthread_create(&storm_thread, NULL, storm_run, &s);
	if (r)
		fail("ioctl thread: %s", strerror(r));
	start_writers(o->writers, fds, WRITER_FDS / 2, false);
	pthread_join(storm_thread, NULL);
	storm_report(&s);
	settle_writers(o->writers, t0);
	tcooff_then_close(stopped, 0); /* the writers filled the queue */
}

static void after_all(void)
{
	palm("reset-stats"); /* the handheld reads again */
	next_output_flows("all");
}

/* ---- the attacker ---- */

/* Drop to the user and its groups (dialout), as a desktop user runs. */
static void become(const char *user)
{
	struct passwd *pw = getpwnam(user);
	/* each thread counts as a process of the user's: let 2000 start */
	struct rlimit nproc = { .rlim_cur = 4 * WRITERS, .rlim_max = 4 * WRITERS };

	if (!pw)
		fail("no user %s", user);
	if (setrlimit(RLIMIT_NPROC, &nproc) < 0 || initgroups(user, pw->pw_gid) < 0 ||
	    setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
		fail("becoming %s: %s", user, strerror(errno));
}

/* Wait for the child to say it is mounted ('m'), sampling pilotd meanwhile. */
static bool wait_mounted(int fd)
{
	char c;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, SAMPLE_MS) == 1)
			return read(fd, &c, 1) == 1 && c == 'm';
		sample_for(0);
	}
}

static void kill_and_reap(pid_t pid, const char *attack)
{
	double t0 = now_s();
	int status;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_s() - t0 > KILL_BOUND_S)
			fail("%s: the attacker did not die of SIGKILL within %.0f s", attack,
			     KILL_BOUND_S);
		sample_for(0);
	}
	note("%s: the attacker died of SIGKILL in %.2f s", attack, now_s() - t0);
}

static void run_attack(const struct options *o, const struct attack *a)
{
	int up[2], status;
	pid_t pid;

	palm("reset-stats");
	if (pipe(up) < 0)
		fail("pipe: %s", strerror(errno));
	rss_peak_kb = 0;
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(up[0]);
		become(o->user);
		a->mount(o);
		if (write(up[1], "m", 1) != 1)
			_exit(1);
		for (;;)
			pause(); /* until the SIGKILL */
	}
	close(up[1]);
	if (!wait_mounted(up[0])) {
		waitpid(pid, &status, 0);
		fail("%s: the attacker failed (status 0x%x)", a->name, status);
	}
	close(up[0]);
	sample_for(1);
	report(a->name, "during");
	kill_and_reap(pid, a->name);
	if (a->after)
		a->after();
	sample_for(1);
	report(a->name, "after");
}

static const struct attack attacks[] = {
	{ "opens", mount_opens, NULL },		  { "ioctls", mount_ioctls, NULL },
	{ "tcooff", mount_tcooff, after_tcooff }, { "writers", mount_writers, after_writers },
	{ "all", mount_all, after_all },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: attack [--user NAME] [--hwm-max KIB] [--opens N] [--writers N]\n"
		"              [--ioctls N] [ATTACK]...\n"
		"As the user (default palm, in group dialout), mount attacks on %s and\n"
		"check pilotd's answers at its bounds; print pilotd's VmRSS, VmHWM and\n"
		"Threads during and after each; fail if VmHWM ends above the bound (default\n"
		"%d kB, %d kB for the sanitized build).  ATTACK: opens, ioctls, tcooff,\n"
		"writers, all (default: each in turn).  Run as root, in the test guest:\n"
		"it puts the simulated Palm in echo mode and resets its counters.\n",
		PILOT_DEV, PILOTD_HWM_BOUND_KB, PILOTD_HWM_BOUND_SANITIZED_KB);
}

static const struct attack *find_attack(const char *name)
{
	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++)
		if (strcmp(attacks[i].name, name) == 0)
			return &attacks[i];
	return NULL;
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "hwm-max", required_argument, NULL, 'm' },
		{ "opens", required_argument, NULL, 'o' },
		{ "writers", required_argument, NULL, 'w' },
		{ "ioctls", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': o->user = optarg; break;
		case 'm': o->hwm_max_kb = atol(optarg); break;
		case 'o': o->opens = atoi(optarg); break;
		case 'w': o->writers = atoi(optarg); break;
		case 'i': o->ioctls = atoi(optarg); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (o->opens < 1 || o->opens > OPENS || o->writers < 1 || o->writers > WRITERS ||
	    o->ioctls < 1) {
		fprintf(stderr, "attack: at most %d opens and %d writers, at least one each\n",
			OPENS, WRITERS);
		exit(2);
	}
	for (int i = optind; i < argc; i++)
		if (!find_attack(argv[i])) {
			usage(stderr);
			exit(2);
		}
}

int main(int argc, char **argv)
{
	struct options o = { .user = "palm", .opens = OPENS, .writers = WRITERS, .ioctls = IOCTLS };
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: calls end with EINTR */
	struct sample end;
	long bound;

	parse(argc, argv, &o);
	guest_test_name("attack");
	{
		const struct passwd *pw = getpwnam(o.user);

		quarter = pw && pw->pw_uid == 0 ? 1 : 4;
	}
	sigaction(SIGUSR1, &sa, NULL);
	pilotd = find_pilotd();
	bound = o.hwm_max_kb ? o.hwm_max_kb : pilotd_hwm_bound_kb(pilotd);
	palm("mode echo");
	report("start", "before");
	if (optind == argc)
		for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++)
			run_attack(&o, &attacks[i]);
	for (int i = optind; i < argc; i++)
		run_attack(&o, find_attack(argv[i]));
	end = sample_pilotd();
	note("pilotd's VmHWM after the attacks: %ld kB (bound %ld kB), Threads %ld", end.hwm_kb,
	     bound, end.threads);
	if (end.hwm_kb > bound)
		fail("pilotd's VmHWM %ld kB is above the bound %ld kB", end.hwm_kb, bound);
	return 0;
}
