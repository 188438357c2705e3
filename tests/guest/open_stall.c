// SPDX-License-Identifier: MIT
/*
 * pilotd keeps answering /dev/pilot while the kernel's driver probes the
 * handheld it is about to open (issue 26, R6-6; docs/design.md "What the
 * loop waits on").  libusb_open() and libusb_claim_interface() take
 * usbfs' device lock, which the kernel holds for the whole of a driver's
 * probe, and the visor driver's probe asks the handheld for its
 * connection information (once, with a 300 ms timeout: visor.c
 * palm_os_4_probe, palm_os_3_probe); a handheld that never answers
 * (palm-sim conninfo silent) keeps the lock for those 300 ms.
 *
 * On arrival pilotd does not meet that probe: libusb hears of a device
 * from udev, whose usb_id builtin reads the device's strings, and those
 * sysfs attributes take the same lock, so the event comes after the
 * probe (a Tungsten T that never answers, plugged in with pilotd idle:
 * no call slower than 0.05 s, pilotd's "arrived" after visor's -110).
 * It meets a probe that starts after libusb knows the device: a driver
 * bound again (here through visor's sysfs bind, as a module loaded on
 * demand or another program's auto-attach does) while pilotd turns to
 * that handheld.  So, with pilotd on a handheld A (a Visor, the extra
 * device) and B (a Tungsten T, conninfo silent) waiting behind it:
 *  - visor is unbound from B and bound again: its probe holds B's lock,
 *    waiting on the unanswered request;
 *  - while it does, A leaves the bus (sysfs remove), so pilotd turns to B;
 *  - all along a thread opens /dev/pilot (O_NONBLOCK), asks TCGETS and
 *    TIOCMGET and closes, in a loop; each call must be answered within
 *    STALL_BOUND_S.  A loop that waits in libusb_open() answers nothing
 *    until the probe gives up: on main at 1c48452 one call took 0.31 to
 *    0.41 s (four runs), while the slowest call away from the probe took
 *    0.03 to 0.08 s;
 *  - afterwards pilotd has taken B (its own request unanswered too, it
 *    falls back to the first bulk pair, as for conninfo stall) and bytes
 *    reach the handheld; palm-sim holds no request the host did not cancel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "guestlib.h"

/* the probe holds the lock 300 ms; a call the loop answers takes < 0.1 s */
#define STALL_BOUND_S 0.2
#define PROBE_MIN_S   0.25 /* a bind shorter than this did not wait on B */
#define USB_DEVICES   "/sys/bus/usb/devices"
#define VISOR_DRIVER  "/sys/bus/usb/drivers/visor"

#define CALLS_KEPT 65536

struct probe {
	atomic_bool stop;
	double t0;
	double worst, worst_at;
	const char *worst_what;
	unsigned long calls;
	struct call {
		double t0, t1;
	} kept[CALLS_KEPT]; /* the first ones, for the slowest away from the probe */
};

static void account(struct probe *p, const char *what, double t0, double t1)
{
	if (p->calls < CALLS_KEPT)
		p->kept[p->calls] = (struct call){ t0, t1 };
	p->calls++;
	if (t1 - t0 > p->worst) {
		p->worst = t1 - t0;
		p->worst_at = t0 - p->t0;
		p->worst_what = what;
	}
}

/* The slowest call that does not overlap [from, to]: what load alone does. */
static double slowest_outside(const struct probe *p, double from, double to)
{
	unsigned long n = p->calls < CALLS_KEPT ? p->calls : CALLS_KEPT;
	double worst = 0;

	for (unsigned long i = 0; i < n; i++)
		if ((p->kept[i].t1 < from || p->kept[i].t0 > to) &&
		    p->kept[i].t1 - p->kept[i].t0 > worst)
			worst = p->kept[i].t1 - p->kept[i].t0;
	return worst;
}

/* A desktop's ioctls on a hung-up file answer EIO: answered all the same. */
static void check(int r, const char *what)
{
	if (r < 0 && errno != EIO)
		fail("%s on " PILOT_DEV ": %s", what, strerror(errno));
}

static void *prober(void *arg)
{
	struct probe *p = arg;

	while (!atomic_load(&p->stop)) {
		struct termios t;
		int lines, fd;
		double t0 = now_s(), t1, t2, t3, t4;

		fd = open(PILOT_DEV, O_RDWR | O_NOCTTY | O_NONBLOCK);
		t1 = now_s();
		if (fd < 0)
			fail("open " PILOT_DEV ": %s", strerror(errno));
		check(ioctl(fd, TCGETS, &t), "TCGETS");
		t2 = now_s();
		check(ioctl(fd, TIOCMGET, &lines), "TIOCMGET");
		t3 = now_s();
		close(fd);
		t4 = now_s();
		account(p, "an open", t0, t1);
		account(p, "TCGETS", t1, t2);
		account(p, "TIOCMGET", t2, t3);
		account(p, "a close", t3, t4);
	}
	return NULL;
}

/* The first line of a sysfs attribute of a USB device, or "". */
static void read_attr(const char *dev, const char *attr, char *buf, size_t size)
{
	char f[512];
	FILE *fp;

	snprintf(f, sizeof(f), USB_DEVICES "/%s/%s", dev, attr);
	buf[0] = '\0';
	fp = fopen(f, "r");
	if (fp && fgets(buf, (int)size, fp))
		buf[strcspn(buf, "\n")] = '\0';
	if (fp)
		fclose(fp);
}

/* The bus path (1-1, 1-2, ...) of the device VID:PID; false if none. */
static bool find_device_now(const char *vid, const char *pid, char *path, size_t size)
{
	DIR *d = opendir(USB_DEVICES);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char v[16], p[16];

		if (e->d_name[0] == '.' || strchr(e->d_name, ':'))
			continue;
		read_attr(e->d_name, "idVendor", v, sizeof(v));
		read_attr(e->d_name, "idProduct", p, sizeof(p));
		if (strcmp(v, vid) == 0 && strcmp(p, pid) == 0) {
			snprintf(path, size, "%s", e->d_name);
			closedir(d);
			return true;
		}
	}
	if (d)
		closedir(d);
	return false;
}

/* The same, waiting for it to come (enumeration under TCG takes a while). */
static void find_device(const char *vid, const char *pid, char *path, size_t size)
{
	double deadline = now_s() + 30;

	while (!find_device_now(vid, pid, path, size))
		if (now_s() > deadline)
			fail("no USB device %s:%s in " USB_DEVICES " within 30 s", vid, pid);
		else
			usleep(20000);
}

static int write_sysfs(const char *file, const char *value)
{
	int fd = open(file, O_WRONLY), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* The driver bound to a USB interface, or "none". */
static const char *driver_of(const char *intf)
{
	static char name[64];
	char link[512], target[512];
	ssize_t n;

	snprintf(link, sizeof(link), USB_DEVICES "/%s/driver", intf);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return "none";
	target[n] = '\0';
	snprintf(name, sizeof(name), "%s", strrchr(target, '/') + 1);
	return name;
}

struct binder {
	char intf[300];
	atomic_int tid;
	double t0, t1;
	int r;
};

static void *bind_visor(void *arg)
{
	struct binder *b = arg;

	atomic_store(&b->tid, gettid());
	b->t0 = now_s();
	b->r = write_sysfs(VISOR_DRIVER "/bind", b->intf);
	b->t1 = now_s();
	return NULL;
}

/* Wait until the binding thread sleeps uninterruptibly: in the probe's
 * control request, B's lock held (nothing else holds it to wait on). */
static void wait_probing(struct binder *b)
{
	double deadline = now_s() + 10;
	char state;

	while (!atomic_load(&b->tid))
		usleep(100);
	while ((state = task_state(getpid(), atomic_load(&b->tid))) != 'D') {
		if (!state)
			fail("the bind of visor to %s ended before its probe was seen", b->intf);
		if (now_s() > deadline)
			fail("the bind of visor to %s never waited on the handheld", b->intf);
		usleep(500);
	}
}

/* B, visor's again after its first probe, taken back from visor. */
static void unbind_b(const char *intf)
{
	double deadline = now_s() + 30;
	int r;

	while (palm_stat("ctrl_cancelled") < 1 || strcmp(driver_of(intf), "visor") != 0) {
		if (now_s() > deadline)
			fail("visor did not probe %s (ctrl_cancelled %llu, driver %s)", intf,
			     (unsigned long long)palm_stat("ctrl_cancelled"), driver_of(intf));
		usleep(20000);
	}
	r = write_sysfs(VISOR_DRIVER "/unbind", intf);
	if (r < 0 || strcmp(driver_of(intf), "none") != 0)
		fail("cannot unbind visor from %s: %s (driver %s)", intf, strerror(-r),
		     driver_of(intf));
}

/* pilotd has B and moves bytes on its first bulk pair (no HotSync pair known). */
static void check_taken(void)
{
	char buf[100] = "open-stall";
	int fd = open_attached(O_RDWR | O_NOCTTY, 30);

	write_full(fd, buf, sizeof(buf));
	palm_wait_stat("other_out_bytes", sizeof(buf), 30);
	close(fd);
}

int main(void)
{
	static struct probe p;
	struct binder b = { 0 };
	char a[256], bdev[256], file[512];
	pthread_t t, tb;
	double t_remove;

	guest_test_name("open-stall");
	if (palm_stat("plugged"))
		fail("run with the simulated Palm off the bus (--sim-arg --unplugged)");
	find_device("082d", "0100", a, sizeof(a)); /* A: pilotd has it */
	palm("mode sink");
	palm("conninfo silent");
	palm("plug");
	find_device("0830", "0060", bdev, sizeof(bdev));
	snprintf(b.intf, sizeof(b.intf), "%s:1.0", bdev);
	unbind_b(b.intf);

	p.t0 = now_s();
	pthread_create(&t, NULL, prober, &p);
	usleep(200000);
	pthread_create(&tb, NULL, bind_visor, &b);
	wait_probing(&b);
	snprintf(file, sizeof(file), USB_DEVICES "/%s/remove", a);
	t_remove = now_s();
	if (write_sysfs(file, "1") < 0)
		fail("cannot remove %s from the bus", a);
	pthread_join(tb, NULL);
	usleep(300000);
	atomic_store(&p.stop, true);
	pthread_join(t, NULL);

	note("A (%s) removed at %.3f s, visor's probe of B (%s) from %.3f to %.3f s; %lu calls, "
	     "the slowest %s: %.3f s at %.3f s; away from the probe %.3f s",
	     a, t_remove - p.t0, bdev, b.t0 - p.t0, b.t1 - p.t0, p.calls, p.worst_what, p.worst,
	     p.worst_at, slowest_outside(&p, b.t0, b.t1));
	if (b.r < 0 || b.t1 - b.t0 < PROBE_MIN_S)
		fail("visor's probe of B did not wait on the handheld (bind: %s, %.3f s): "
		     "nothing shown",
		     strerror(-b.r), b.t1 - b.t0);
	if (p.worst > STALL_BOUND_S)
		fail("%s of " PILOT_DEV " took %.3f s (at %.3f s; A removed at %.3f s, visor's "
		     "probe of B ended at %.3f s): pilotd answered nothing while it waited on "
		     "the kernel's probe of the handheld it turned to",
		     p.worst_what, p.worst, p.worst_at, t_remove - p.t0, b.t1 - p.t0);
	check_taken();
	if (palm_stat("ctrl_unanswered") != 0)
		fail("palm-sim still holds %llu control requests",
		     (unsigned long long)palm_stat("ctrl_unanswered"));
	note("pilotd answered every call within %.3f s while visor probed B for %.3f s; then it "
	     "took B (%llu connection-information requests, %llu cancelled)",
	     p.worst, b.t1 - b.t0, (unsigned long long)palm_stat("conninfo_requests"),
	     (unsigned long long)palm_stat("ctrl_cancelled"));
	return 0;
}
