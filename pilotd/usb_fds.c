// SPDX-License-Identifier: MIT
/* libusb's fds in the loop; see usb_fds.h. */
#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <linux/usbdevice_fs.h>

#include "core/log.h"
#include "usb_fds.h"

#define USB_DEVICE_MAJOR 189 /* usbfs nodes (drivers/usb/core/usb.c) */

static void fd_ready(void *ctx, uint32_t events)
{
	struct usb_fds *f = ctx;

	f->ready(f->ctx);
}

static uint32_t epoll_events(short poll_events)
{
	return (poll_events & POLLIN ? EPOLLIN : 0) | (poll_events & POLLOUT ? EPOLLOUT : 0);
}

/* Told on a thread that is not the loop's: noted, for usb_fds_sync(). */
static bool elsewhere(struct usb_fds *f)
{
	if (pthread_equal(pthread_self(), f->loop_thread))
		return false;
	atomic_store(&f->changed, true);
	return true;
}

static void fd_added(int fd, short events, void *user)
{
	struct usb_fds *f = user;

	if (elsewhere(f))
		return;
	for (int i = 0; i < USB_FDS_MAX; i++) {
		if (f->fds[i].ready)
			continue;
		f->fds[i] = (struct watch){ .fd = fd, .ready = fd_ready, .ctx = f };
		if (loop_add(f->loop, &f->fds[i], epoll_events(events)) < 0)
			log_err("cannot watch libusb fd %d", fd);
		return;
	}
	log_err("libusb opened more than %d fds; USB events may be missed", USB_FDS_MAX);
}

static void fd_removed(int fd, void *user)
{
	struct usb_fds *f = user;

	if (elsewhere(f))
		return;
	for (int i = 0; i < USB_FDS_MAX; i++) {
		if (f->fds[i].ready && f->fds[i].fd == fd) {
			loop_del(f->loop, &f->fds[i]); /* also from the batch in hand */
			f->fds[i] = (struct watch){ 0 };
		}
	}
}

static void watch_all(struct usb_fds *f, libusb_context *usb)
{
	const struct libusb_pollfd **fds = libusb_get_pollfds(usb);

	for (int i = 0; fds && fds[i]; i++)
		fd_added(fds[i]->fd, fds[i]->events, f);
	libusb_free_pollfds(fds);
}

void usb_fds_watch(struct usb_fds *f, libusb_context *usb)
{
	f->loop_thread = pthread_self();
	atomic_init(&f->changed, false);
	watch_all(f, usb);
	libusb_set_pollfd_notifiers(usb, fd_added, fd_removed, f);
}

static void unwatch_all(struct usb_fds *f)
{
	for (int i = 0; i < USB_FDS_MAX; i++)
		if (f->fds[i].ready) {
			loop_del(f->loop, &f->fds[i]);
			f->fds[i] = (struct watch){ 0 };
		}
}

/*
 * While another thread opens or closes a device, libusb's event fd stays
 * readable (libusb_close() signals it and holds the event lock through the
 * close, which waits on usbfs' device lock) and libusb cannot handle
 * events here: watched, it would wake the loop at once, round after round.
 * Nothing of libusb's needs the loop then (one handheld at a time, no
 * transfer in flight): its fds are watched again at usb_fds_sync().
 */
void usb_fds_pause(struct usb_fds *f)
{
	unwatch_all(f);
	atomic_store(&f->changed, true);
}

/*
 * Every watch goes and libusb's list comes back: a number the other
 * thread closed may since name another file (closing it took the old one
 * out of epoll; the delete then fails harmlessly).
 */
void usb_fds_sync(struct usb_fds *f, libusb_context *usb)
{
	if (!atomic_exchange(&f->changed, false))
		return;
	unwatch_all(f);
	watch_all(f, usb);
}

void usb_fds_unwatch(struct usb_fds *f, libusb_context *usb)
{
	libusb_set_pollfd_notifiers(usb, NULL, NULL, NULL);
}

/* The device's usbfs file, which libusb polls while it is open, or -1. */
static int usbfs_fd(const struct usb_fds *f, libusb_device *dev)
{
	unsigned int bus = libusb_get_bus_number(dev);
	unsigned int addr = libusb_get_device_address(dev);
	dev_t want = makedev(USB_DEVICE_MAJOR, (bus - 1) * 128 + (addr - 1));
	struct stat st;

	for (int i = 0; i < USB_FDS_MAX; i++)
		if (f->fds[i].ready && fstat(f->fds[i].fd, &st) == 0 && S_ISCHR(st.st_mode) &&
		    st.st_rdev == want)
			return f->fds[i].fd;
	return -1;
}

/*
 * After CLEAR_FEATURE(ENDPOINT_HALT) the device sends and expects DATA0.
 * usbfs resets the host's side of the endpoint (its data toggle) for
 * USBDEVFS_CLEAR_HALT, which libusb_clear_halt() uses and which waits up
 * to 5 s for the device, but not for a control URB with the same request
 * (devio.c proc_do_submiturb() passes it to the device only), and libusb
 * has no call for the reset alone (its issue #854).  USBDEVFS_RESETEP
 * does just that: host-side state, nothing sent to the device.
 */
int usb_fds_reset_endpoint(const struct usb_fds *f, libusb_device *dev, uint8_t ep)
{
	unsigned int e = ep;
	int fd = usbfs_fd(f, dev);

	if (fd < 0)
		return -ENOENT;
	return ioctl(fd, USBDEVFS_RESETEP, &e) < 0 ? -errno : 0;
}
