// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "guestlib.h"

#define CONTROL_TTY	   "/dev/ttyS1"
#define CONTROL_TIMEOUT_MS 10000

static const char *test_name = "guest-test";
static int control_fd = -1;

void guest_test_name(const char *name)
{
	test_name = name;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: FAIL: ", test_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void note(const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", test_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A palm-sim inside the guest (network HotSync): its control socket. */
static int control_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof(sa.sun_path))
		fail("PALMCTL_SOCKET too long: %s", path);
	strcpy(sa.sun_path, path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail("cannot reach the simulated Palm at %s: %s", path, strerror(errno));
	return fd;
}

static void control_open(void)
{
	struct termios t;

	if (control_fd >= 0)
		return;
	if (getenv("PALMCTL_SOCKET")) {
		control_fd = control_socket(getenv("PALMCTL_SOCKET"));
		return;
	}
	control_fd = open(CONTROL_TTY, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (control_fd < 0)
		fail("cannot open the simulated Palm's control channel %s: %s", CONTROL_TTY,
		     strerror(errno));
	if (tcgetattr(control_fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(control_fd, TCSANOW, &t);
	}
	tcflush(control_fd, TCIOFLUSH);
}

static const char *vcommand(const char *fmt, va_list ap)
{
	static char reply[1024];
	char line[512];
	size_t len = 0;
	int n;

	control_open();
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		fail("control command too long");
	line[n++] = '\n';
	write_full(control_fd, line, (size_t)n);
	while (len < sizeof(reply) - 1) {
		struct pollfd p = { .fd = control_fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, CONTROL_TIMEOUT_MS) != 1)
			fail("the simulated Palm did not answer '%.*s' within %d ms", n - 1, line,
			     CONTROL_TIMEOUT_MS);
		r = read(control_fd, reply + len, 1);
		if (r != 1)
			fail("control channel read: %s", r < 0 ? strerror(errno) : "EOF");
		if (reply[len] == '\n')
			break;
		len++;
	}
	reply[len] = '\0';
	return reply;
}

const char *palm_reply(const char *fmt, ...)
{
	va_list ap;
	const char *r;

	va_start(ap, fmt);
	r = vcommand(fmt, ap);
	va_end(ap);
	return r;
}

void palm(const char *fmt, ...)
{
	va_list ap;
	const char *r;

	va_start(ap, fmt);
	r = vcommand(fmt, ap);
	va_end(ap);
	if (strncmp(r, "ok", 2) != 0)
		fail("simulated Palm refused a command: %s", r);
}

uint64_t palm_stat(const char *field)
{
	const char *r = palm_reply("stats");
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s=", field);
	p = strstr(r, key);
	if (!p)
		fail("no '%s' in stats reply: %s", field, r);
	return strtoull(p + strlen(key), NULL, strcmp(field, "out_fnv") == 0 ? 16 : 10);
}

void palm_wait_stat(const char *field, uint64_t value, double timeout_s)
{
	double deadline = now_s() + timeout_s;
	uint64_t v;

	while ((v = palm_stat(field)) != value) {
		if (now_s() > deadline)
			fail("simulated Palm's %s is %" PRIu64 " after %.0f s, expected %" PRIu64,
			     field, v, timeout_s, value);
		usleep(20000);
	}
}

size_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, (char *)buf + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

void write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = write(fd, (const char *)buf + done, len - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			fail("write: %s", r < 0 ? strerror(errno) : "wrote nothing");
		done += (size_t)r;
	}
}

char task_state(int pid, int tid)
{
	char path[64], buf[256];
	FILE *f;
	char *p = NULL;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f))
		p = strrchr(buf, ')');
	if (f)
		fclose(f);
	return p && p[1] == ' ' ? p[2] : 0;
}

void wait_sleeping(int pid, int tid)
{
	double deadline = now_s() + 10;

	while (now_s() < deadline) {
		if (task_state(pid, tid) == 'S')
			return;
		usleep(10000);
	}
	fail("task %d of process %d never blocked", tid, pid);
}

void set_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) < 0)
		fail("tcgetattr: %s", strerror(errno));
	cfmakeraw(&t);
	if (tcsetattr(fd, TCSANOW, &t) < 0)
		fail("tcsetattr: %s", strerror(errno));
}

int open_node_attached(const char *path, int flags, double timeout_s)
{
	double deadline = now_s() + timeout_s;
	int fd = open(path, flags), lines = 0;

	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	set_raw(fd); /* as every serial desktop does first: bytes, not lines */
	/* the carrier line is "a handheld is attached" */
	while (ioctl(fd, TIOCMGET, &lines) == 0 && !(lines & TIOCM_CAR)) {
		if (now_s() > deadline)
			fail("no handheld attached to %s within %.0f s", path, timeout_s);
		usleep(10000);
	}
	if (!(lines & TIOCM_CAR))
		fail("TIOCMGET on %s: %s", path, strerror(errno));
	return fd;
}

int open_attached(int flags, double timeout_s)
{
	return open_node_attached(PILOT_DEV, flags, timeout_s);
}

pid_t start_own_pilotd(const char *log_path, const char *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(126);
		execlp("pilotd", "pilotd", "-v", arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	/*
	 * Open until /dev/pilot answers.  CUSE makes the node (device_add(),
	 * devtmpfs) before it registers the character device (cdev_add()):
	 * an open in between is ENXIO from chrdev_open(), as one before the
	 * node is ENOENT.
	 */
	for (int i = 0;; i++) {
		int fd = open(PILOT_DEV, O_RDWR | O_NONBLOCK | O_NOCTTY);

		if (fd >= 0) {
			close(fd);
			break;
		}
		if ((errno != ENOENT && errno != ENXIO) || i == 1000)
			fail("open " PILOT_DEV " within 10 s of starting pilotd: %s",
			     strerror(errno));
		usleep(10000);
	}
	return pid;
}

void stop_own_pilotd(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("pilotd did not exit 0 after SIGTERM (status 0x%x)", status);
}

pid_t find_pilotd(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t pid = 0;

	while (d && (e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) && strcmp(comm, "pilotd\n") == 0)
			pid = atoi(e->d_name);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	if (!pid)
		fail("pilotd is not running");
	return pid;
}

bool pilotd_sanitized(pid_t pid)
{
	char path[64], exe[256] = "";

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return readlink(path, exe, sizeof(exe) - 1) > 0 && strstr(exe, "pilotd-sanitized");
}

long proc_status_kb(pid_t pid, const char *field)
{
	size_t n = strlen(field);
	char path[64], line[128];
	long value = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			value = strtol(line + n + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return value;
}

long pilotd_hwm_bound_kb(pid_t pid)
{
	return pilotd_sanitized(pid) ? PILOTD_HWM_BOUND_SANITIZED_KB : PILOTD_HWM_BOUND_KB;
}

const char *attack_failed(const char *fmt, ...)
{
	static char why[512], next[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(next, sizeof(next), fmt, ap);
	va_end(ap);
	strcpy(why, next);
	return why;
}

/* Run one attack in a child; 0 if it passed. */
static int run_attack(const struct guest_attack *a, double deadline_s)
{
	double deadline = now_s() + deadline_s;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		const char *err = a->run();

		if (err) {
			printf("FAIL %s: %s\n", a->name, err);
			_exit(1);
		}
		printf("PASS %s\n", a->name);
		_exit(0);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_s() > deadline) {
			printf("FAIL %s: no end within %.0f s (a hang); killed\n", a->name,
			       deadline_s);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 1;
		}
		usleep(50000);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
		printf("FAIL %s: the attack's process ended with status 0x%x\n", a->name, status);
	return 1;
}

int run_attacks(const struct guest_attack *attacks, size_t n, char **names, int nnames,
		double deadline_s)
{
	int failed = 0;

	for (int k = 0; k < nnames; k++) {
		size_t i = 0;

		while (i < n && strcmp(names[k], attacks[i].name) != 0)
			i++;
		if (i == n)
			fail("no attack named %s", names[k]);
	}
	for (size_t i = 0; i < n; i++) {
		bool chosen = nnames == 0;

		for (int k = 0; k < nnames; k++)
			chosen |= strcmp(names[k], attacks[i].name) == 0;
		if (chosen)
			failed += run_attack(&attacks[i], deadline_s);
	}
	return failed;
}

struct guest_uring {
	int fd;
	struct io_uring_params pr;
	void *cq;
};

struct guest_uring *guest_uring_submit(const struct io_uring_sqe *sqe, int *err)
{
	struct guest_uring *u = calloc(1, sizeof(*u));
	struct io_uring_sqe *sqes;
	unsigned int *sq_tail, *sq_array;
	void *sq;

	if (!u) {
		*err = -ENOMEM;
		return NULL;
	}
	u->fd = (int)syscall(__NR_io_uring_setup, 4, &u->pr);
	if (u->fd < 0) {
		*err = -errno;
		free(u);
		return NULL;
	}
	sq = mmap(NULL, u->pr.sq_off.array + u->pr.sq_entries * sizeof(unsigned),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQ_RING);
	u->cq = mmap(NULL, u->pr.cq_off.cqes + u->pr.cq_entries * sizeof(struct io_uring_cqe),
		     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, u->pr.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || u->cq == MAP_FAILED || sqes == MAP_FAILED)
		fail("mmap of an io_uring: %s", strerror(errno));
	sq_tail = (unsigned *)((char *)sq + u->pr.sq_off.tail);
	sq_array = (unsigned *)((char *)sq + u->pr.sq_off.array);
	sqes[0] = *sqe;
	sq_array[0] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, u->fd, 1, 0, 0, NULL, 0) != 1) {
		*err = -errno;
		close(u->fd);
		free(u);
		return NULL;
	}
	return u;
}

int guest_uring_result(struct guest_uring *u)
{
	unsigned *head = (unsigned *)((char *)u->cq + u->pr.cq_off.head);
	unsigned *tail = (unsigned *)((char *)u->cq + u->pr.cq_off.tail);
	struct io_uring_cqe *cqes = (void *)((char *)u->cq + u->pr.cq_off.cqes);
	double deadline = now_s() + 5;

	while (__atomic_load_n(tail, __ATOMIC_ACQUIRE) == *head) {
		struct pollfd p = { .fd = u->fd, .events = POLLIN };

		if (now_s() > deadline)
			return -ETIME;
		poll(&p, 1, 100);
		/* runs the task work that posts a completion; does not wait */
		syscall(__NR_io_uring_enter, u->fd, 0, 0, IORING_ENTER_GETEVENTS, NULL, 0);
	}
	return cqes[*head & (u->pr.cq_entries - 1)].res;
}

void guest_uring_close(struct guest_uring *u)
{
	close(u->fd);
	free(u);
}

/* The console shows errors only: the log itself is read. */
const char *guest_kernel_complained(void)
{
	static char log[1 << 17];
	static const char *const marks[] = { "WARNING:", "BUG:", "Oops", "Call Trace",
					     "general protection" };
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);

	if (n < 0)
		return NULL;
	log[n] = 0;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		char *at = strstr(log, marks[i]);

		if (at) {
			char *end = strchr(at, '\n');

			if (end)
				*end = 0;
			return at;
		}
	}
	return NULL;
}

int guest_attack_main(const char *name, const struct guest_attack *attacks, size_t n, int argc,
		      char **argv, double deadline_s)
{
	int failed;

	guest_test_name(name);
	failed = run_attacks(attacks, n, argv + 1, argc - 1, deadline_s);
	note("%d attacks failed", failed);
	if (guest_kernel_complained())
		fail("the kernel's log: %s", guest_kernel_complained());
	return failed ? 1 : 0;
}
