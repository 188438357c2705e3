/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the programs that run inside the test guest: talk to the
 * simulated Palm's control channel (the guest's /dev/ttyS1), time things,
 * fail loudly.
 */
#ifndef PILOTD_GUESTLIB_H
#define PILOTD_GUESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PILOT_DEV "/dev/pilot"

/* Print "name: message" and exit 1. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void guest_test_name(const char *name);

double now_s(void);

/* Send one command to the simulated Palm; fails the test unless "ok". */
void palm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, returning the reply line (static buffer). */
const char *palm_reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A numeric field of the "stats" reply. */
uint64_t palm_stat(const char *field);
/* Wait until stats field reaches value; fails after timeout_s. */
void palm_wait_stat(const char *field, uint64_t value, double timeout_s);

/* The state letter of thread tid of process pid (R, S, D, ...), 0 if it is gone. */
char task_state(int pid, int tid);
/* Wait until thread tid of process pid sleeps in the kernel; fails after 10 s. */
void wait_sleeping(int pid, int tid);

/*
 * A pilotd of the test's own (the guest started none: --no-pilotd), run as
 * "pilotd -v [arg]" with its log in log_path; returns once /dev/pilot is
 * there (fails after 10 s).  stop_own_pilotd(): SIGTERM, and it must exit 0.
 */
pid_t start_own_pilotd(const char *log_path, const char *arg);
void stop_own_pilotd(pid_t pid);
/* The pid of the running pilotd; fails when there is none. */
pid_t find_pilotd(void);
/* pilotd runs the AddressSanitizer build (/usr/lib/pilotd-sanitized). */
bool pilotd_sanitized(pid_t pid);
/* A "kB" field of /proc/PID/status (VmRSS, VmHWM) or a count (Threads); -1 if absent. */
long proc_status_kb(pid_t pid, const char *field);
/*
 * A loose bound on pilotd's VmHWM under the attacks of attack and
 * redir-flood, 2-3 times what docs/design.md "Bounds" reports; larger for
 * the sanitized build (ASan's shadow memory and its quarantine of freed
 * blocks).
 */
#define PILOTD_HWM_BOUND_KB	      (16 * 1024)
#define PILOTD_HWM_BOUND_SANITIZED_KB (48 * 1024)
long pilotd_hwm_bound_kb(pid_t pid);

/*
 * Open /dev/pilot and wait until a handheld is attached (TIOCM_CAR): bytes
 * written before that reach no handheld.  Fails after timeout_s.
 */
int open_attached(int flags, double timeout_s);
/* The same for another node (pilotd --name). */
int open_node_attached(const char *path, int flags, double timeout_s);
/* cfmakeraw() settings, as a desktop makes them (a fresh tty is cooked: lines, echo) */
void set_raw(int fd);

/*
 * Attack programs (stream-attack, stream-client-attack): an attack returns
 * NULL when it passed, or attack_failed()'s message.
 */
struct guest_attack {
	const char *name;
	const char *(*run)(void);
};
/* A message in a static buffer; it may quote the previous one. */
const char *attack_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Run the attacks named in names[0..nnames) (all when nnames is 0), each in
 * a child that must end within deadline_s (killed and failed otherwise),
 * printing "PASS name" or "FAIL name: why".  Returns how many failed; fails
 * the test when a name is not an attack.
 */
int run_attacks(const struct guest_attack *attacks, size_t n, char **names, int nnames,
		double deadline_s);

/*
 * The first line of the kernel's log with a warning, bug or oops in it (in
 * a static buffer), or NULL: the attack programs' last check.
 */
const char *guest_kernel_complained(void);
/*
 * main() of a hostile server's attack program (stream-attack,
 * uring-attack): the attacks named in argv (all when none), then the
 * kernel's log; the exit status.
 */
int guest_attack_main(const char *name, const struct guest_attack *attacks, size_t n, int argc,
		      char **argv, double deadline_s);

/*
 * One io_uring request without liburing: set up a ring, submit sqe; NULL
 * with *err = -errno on failure.  guest_uring_result(): the first
 * completion's res, -ETIME after 5 s.
 */
struct io_uring_sqe;
struct guest_uring;
struct guest_uring *guest_uring_submit(const struct io_uring_sqe *sqe, int *err);
int guest_uring_result(struct guest_uring *u);
void guest_uring_close(struct guest_uring *u);

/* read() until len bytes or error; returns bytes read. */
size_t read_full(int fd, void *buf, size_t len);
void write_full(int fd, const void *buf, size_t len);

#endif
