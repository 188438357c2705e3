// SPDX-License-Identifier: MIT
/*
 * A fake libusb-1.0 for test_link_libusb.c; what it models is in
 * fake_libusb.h.  Time is pilotd's (loop_now_ms(), the test's clock).
 */
#include <errno.h>
#include <fcntl.h>
#include <libusb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/loop.h"
#include "core/palm.h"
#include "fake_libusb.h"

#define HOTSYNC_PORT 2 /* bulk endpoints 0x82 and 0x02 */
#define EVENTS_MAX   64
#define FLIGHT_MAX   64
#define DEVICES_MAX  64

struct libusb_device {
	struct fake_dev *f;
	int refs;	   /* libusb's own while listed, and pilotd's */
	bool present;	   /* on the bus */
	bool listed;	   /* its arrival handled, its departure not yet */
	uint64_t list_seq; /* when it was listed: the list is newest first */
};

struct libusb_device_handle {
	struct libusb_device *dev;
	/* stand for its usbfs file among libusb's pollfds: a pipe's read end
	 * polled for POLLOUT, never ready (completions wake the context's) */
	int fd, write_end;
	struct libusb_device_handle *next;
};

struct libusb_context {
	int fd; /* readable while the event handling has something to tell */
};

struct hotplug_event {
	struct libusb_device *dev;
	libusb_hotplug_event what;
};

/* A transfer submitted and not yet completed. */
struct flight {
	struct libusb_transfer *t;
	bool done; /* completes at the next event handling, with: */
	enum libusb_transfer_status status;
	int actual_length;
	bool ends_handshake;
};

static struct fake {
	pthread_mutex_t lock;
	pthread_cond_t pulled;
	struct libusb_context ctx;
	struct libusb_device *devs[DEVICES_MAX]; /* every one made since the reset */
	int ndevs;
	uint64_t list_seq;
	struct hotplug_event events[EVENTS_MAX];
	int nevents;
	struct flight flight[FLIGHT_MAX];
	int nflight;
	struct libusb_device_handle *handles;
	int nhandles;
	libusb_hotplug_callback_fn hotplug;
	void *hotplug_user;
	libusb_pollfd_added_cb fd_added;
	libusb_pollfd_removed_cb fd_removed;
	void *fd_user;
	int lists, misuses;
} fk = { .lock = PTHREAD_MUTEX_INITIALIZER,
	 .pulled = PTHREAD_COND_INITIALIZER,
	 .ctx = { .fd = -1 } };

static void lock(void)
{
	pthread_mutex_lock(&fk.lock);
}

static void unlock(void)
{
	pthread_mutex_unlock(&fk.lock);
}

/* Under the lock: the event handling has something to tell. */
static void wake(void)
{
	const uint64_t one = 1;

	if (fk.ctx.fd >= 0 && write(fk.ctx.fd, &one, sizeof(one)) < 0)
		perror("fake libusb: eventfd");
}

static void misuse(const char *what, const struct libusb_device *dev)
{
	fprintf(stderr, "fake libusb: %s (%s)\n", what, dev ? dev->f->name : "?");
	fk.misuses++;
}

/* ---- the test's side ---- */

void fake_usb_reset(void)
{
	fake_usb_free();
	lock();
	fk.nevents = fk.nflight = fk.lists = fk.misuses = 0;
	fk.list_seq = 0;
	unlock();
}

static void queue_event(struct libusb_device *dev, libusb_hotplug_event what)
{
	if (fk.nevents == EVENTS_MAX) {
		misuse("too many hotplug events pending", dev);
		return;
	}
	fk.events[fk.nevents++] = (struct hotplug_event){ .dev = dev, .what = what };
	wake();
}

void fake_usb_plug(struct fake_dev *d)
{
	struct libusb_device *dev = calloc(1, sizeof(*dev));

	lock();
	if (!dev || fk.ndevs == DEVICES_MAX) {
		misuse("too many devices", NULL);
		free(dev);
		unlock();
		return;
	}
	*dev = (struct libusb_device){ .f = d, .present = true };
	fk.devs[fk.ndevs++] = dev;
	d->dev = dev; /* a new libusb_device each time, as libusb makes one */
	queue_event(dev, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED);
	unlock();
}

void fake_usb_pull(struct fake_dev *d)
{
	lock();
	d->dev->present = false;
	d->claimed = false;
	for (int i = 0; i < fk.nflight; i++) {
		struct flight *fl = &fk.flight[i];

		if (fl->t->dev_handle->dev == d->dev && !fl->done)
			*fl = (struct flight){ .t = fl->t,
					       .done = true,
					       .status = LIBUSB_TRANSFER_NO_DEVICE };
	}
	queue_event(d->dev, LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT);
	pthread_cond_broadcast(&fk.pulled);
	unlock();
}

static int read_locked(const int *v)
{
	int n;

	lock();
	n = *v;
	unlock();
	return n;
}

int fake_usb_device_lists(void)
{
	return read_locked(&fk.lists);
}

int fake_usb_open_handles(void)
{
	return read_locked(&fk.nhandles);
}

int fake_usb_opens(const struct fake_dev *d)
{
	return read_locked(&d->opens);
}

int fake_usb_refs(const struct fake_dev *d)
{
	int n;

	lock();
	n = d->dev->refs - d->dev->listed;
	unlock();
	return n;
}

int fake_usb_stray_refs(void)
{
	int stray = 0;

	lock();
	for (int i = 0; i < fk.ndevs; i++) {
		const struct libusb_device *dev = fk.devs[i];
		int held = dev->refs - dev->listed;

		if (held)
			fprintf(stderr, "fake libusb: %s still has %d references of pilotd's\n",
				dev->f->name, held);
		stray += held > 0 ? held : -held;
	}
	stray += fk.misuses;
	unlock();
	return stray;
}

void fake_usb_free(void)
{
	lock();
	for (int i = 0; i < fk.ndevs; i++)
		free(fk.devs[i]);
	fk.ndevs = 0;
	unlock();
}

/* ---- the context, and the event handling ---- */

int libusb_init(libusb_context **ctx)
{
	lock();
	fk.ctx.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	/* libusb lists what is on the bus when it starts */
	for (int i = 0; i < fk.nevents; i++) {
		struct libusb_device *dev = fk.events[i].dev;

		dev->listed = fk.events[i].what == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED;
		dev->refs += dev->listed ? 1 : -1;
		dev->list_seq = ++fk.list_seq;
	}
	fk.nevents = 0;
	*ctx = &fk.ctx;
	unlock();
	return fk.ctx.fd < 0 ? LIBUSB_ERROR_NO_MEM : 0;
}

void libusb_exit(libusb_context *ctx)
{
	lock();
	if (fk.handles)
		misuse("libusb_exit() with a device open", fk.handles->dev);
	if (fk.nflight)
		misuse("libusb_exit() with transfers in flight", NULL);
	close(fk.ctx.fd);
	fk.ctx.fd = -1;
	unlock();
}

int libusb_has_capability(uint32_t capability)
{
	return capability == LIBUSB_CAP_HAS_HOTPLUG;
}

const char *libusb_strerror(int errcode)
{
	switch (errcode) {
	case LIBUSB_ERROR_IO: return "Input/Output Error";
	case LIBUSB_ERROR_INVALID_PARAM: return "Invalid parameter";
	case LIBUSB_ERROR_ACCESS: return "Access denied (insufficient permissions)";
	case LIBUSB_ERROR_NO_DEVICE: return "No such device (it may have been disconnected)";
	case LIBUSB_ERROR_NOT_FOUND: return "Entity not found";
	case LIBUSB_ERROR_BUSY: return "Resource busy";
	default: return "Other error";
	}
}

/* Tell the next pending hotplug event; false if none. */
static bool tell_hotplug(void)
{
	struct hotplug_event ev;
	libusb_hotplug_callback_fn cb;
	void *user;

	lock();
	if (!fk.nevents) {
		unlock();
		return false;
	}
	ev = fk.events[0];
	memmove(fk.events, fk.events + 1, (size_t)--fk.nevents * sizeof(fk.events[0]));
	if (ev.what == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED) {
		ev.dev->listed = true;
		ev.dev->refs++; /* libusb's own */
		ev.dev->list_seq = ++fk.list_seq;
	} else {
		ev.dev->listed = false;
	}
	cb = fk.hotplug;
	user = fk.hotplug_user;
	unlock();
	if (cb)
		cb(&fk.ctx, ev.dev, ev.what, user);
	if (ev.what == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT)
		libusb_unref_device(ev.dev); /* libusb's own, after the callbacks */
	return true;
}

/* Complete the transfers that were done when the handling began. */
static void complete_transfers(void)
{
	struct flight done[FLIGHT_MAX];
	int n = 0;

	lock();
	for (int i = 0; i < fk.nflight;) {
		if (fk.flight[i].done) {
			done[n++] = fk.flight[i];
			fk.flight[i] = fk.flight[--fk.nflight];
		} else {
			i++;
		}
	}
	unlock();
	for (int i = 0; i < n; i++) {
		struct libusb_transfer *t = done[i].t;

		if (done[i].ends_handshake && done[i].status == LIBUSB_TRANSFER_COMPLETED)
			t->dev_handle->dev->f->handshake_done = true;
		t->status = done[i].status;
		t->actual_length = done[i].actual_length;
		t->callback(t);
	}
}

int libusb_handle_events_timeout_completed(libusb_context *ctx, struct timeval *tv, int *completed)
{
	uint64_t count;

	if (read(fk.ctx.fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		perror("fake libusb: eventfd");
	while (tell_hotplug())
		;
	complete_transfers();
	return 0;
}

int libusb_pollfds_handle_timeouts(libusb_context *ctx)
{
	return 1; /* a timerfd: no timeouts for pilotd to keep */
}

int libusb_get_next_timeout(libusb_context *ctx, struct timeval *tv)
{
	return 0;
}

/* One block: the array, then the entries. */
const struct libusb_pollfd **libusb_get_pollfds(libusb_context *ctx)
{
	const struct libusb_pollfd **fds;
	struct libusb_pollfd *entry;
	int n = 0;

	lock();
	fds = calloc(1, (size_t)(fk.nhandles + 2) * (sizeof(*fds) + sizeof(*entry)));
	if (fds) {
		entry = (struct libusb_pollfd *)(fds + fk.nhandles + 2);
		entry[n] = (struct libusb_pollfd){ .fd = fk.ctx.fd, .events = POLLIN };
		fds[n] = &entry[n];
		n++;
		for (struct libusb_device_handle *h = fk.handles; h; h = h->next, n++) {
			entry[n] = (struct libusb_pollfd){ .fd = h->fd, .events = POLLOUT };
			fds[n] = &entry[n];
		}
	}
	unlock();
	return fds;
}

void libusb_free_pollfds(const struct libusb_pollfd **pollfds)
{
	free((void *)pollfds);
}

void libusb_set_pollfd_notifiers(libusb_context *ctx, libusb_pollfd_added_cb added_cb,
				 libusb_pollfd_removed_cb removed_cb, void *user_data)
{
	lock();
	fk.fd_added = added_cb;
	fk.fd_removed = removed_cb;
	fk.fd_user = user_data;
	unlock();
}

/* ---- hotplug and the device list ---- */

int libusb_hotplug_register_callback(libusb_context *ctx, int events, int flags, int vendor_id,
				     int product_id, int dev_class,
				     libusb_hotplug_callback_fn cb_fn, void *user_data,
				     libusb_hotplug_callback_handle *callback_handle)
{
	libusb_device **list;
	ssize_t n;

	lock();
	fk.hotplug = cb_fn;
	fk.hotplug_user = user_data;
	unlock();
	*callback_handle = 1;
	if (!(flags & LIBUSB_HOTPLUG_ENUMERATE))
		return 0;
	n = libusb_get_device_list(ctx, &list);
	lock();
	fk.lists--; /* libusb's, not pilotd's */
	unlock();
	for (ssize_t i = 0; i < n; i++)
		cb_fn(ctx, list[i], LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED, user_data);
	libusb_free_device_list(list, 1);
	return 0;
}

void libusb_hotplug_deregister_callback(libusb_context *ctx,
					libusb_hotplug_callback_handle callback_handle)
{
	lock();
	fk.hotplug = NULL;
	unlock();
}

ssize_t libusb_get_device_list(libusb_context *ctx, libusb_device ***list)
{
	libusb_device **l;
	ssize_t n = 0;

	lock();
	fk.lists++;
	l = calloc((size_t)fk.ndevs + 1, sizeof(*l));
	if (!l) {
		unlock();
		return LIBUSB_ERROR_NO_MEM;
	}
	for (int i = fk.ndevs - 1; i >= 0; i--) /* made later, listed later */
		if (fk.devs[i]->listed) {
			l[n++] = fk.devs[i];
			fk.devs[i]->refs++;
		}
	unlock();
	*list = l;
	return n;
}

void libusb_free_device_list(libusb_device **list, int unref_devices)
{
	for (int i = 0; list && list[i]; i++)
		if (unref_devices)
			libusb_unref_device(list[i]);
	free(list);
}

libusb_device *libusb_ref_device(libusb_device *dev)
{
	lock();
	if (dev->refs <= 0)
		misuse("a reference taken on a device libusb has freed", dev);
	dev->refs++;
	unlock();
	return dev;
}

void libusb_unref_device(libusb_device *dev)
{
	lock();
	if (dev->refs <= 0)
		misuse("a reference dropped that was not held", dev);
	dev->refs--;
	unlock();
}

/* ---- one device ---- */

int libusb_get_device_descriptor(libusb_device *dev, struct libusb_device_descriptor *desc)
{
	*desc = (struct libusb_device_descriptor){ .bLength = LIBUSB_DT_DEVICE_SIZE,
						   .bDescriptorType = LIBUSB_DT_DEVICE,
						   .idVendor = dev->f->vid,
						   .idProduct = dev->f->pid,
						   .bNumConfigurations = 1 };
	return 0;
}

uint8_t libusb_get_bus_number(libusb_device *dev)
{
	return 1;
}

uint8_t libusb_get_device_address(libusb_device *dev)
{
	return dev->f->address;
}

int libusb_get_port_numbers(libusb_device *dev, uint8_t *port_numbers, int port_numbers_len)
{
	if (port_numbers_len < 1)
		return LIBUSB_ERROR_OVERFLOW;
	if (dev->f->hub_port) {
		if (port_numbers_len < 2)
			return LIBUSB_ERROR_OVERFLOW;
		port_numbers[0] = dev->f->hub_port;
		port_numbers[1] = dev->f->address;
		return 2;
	}
	port_numbers[0] = dev->f->address;
	return 1;
}

/* Interface 0 with the bulk pair of HotSync, as the config descriptor says. */
struct fake_config {
	struct libusb_config_descriptor cfg; /* first: what is freed */
	struct libusb_interface itf;
	struct libusb_interface_descriptor alt;
	struct libusb_endpoint_descriptor ep[3];
};

int libusb_get_active_config_descriptor(libusb_device *dev,
					struct libusb_config_descriptor **config)
{
	struct fake_config *c = calloc(1, sizeof(*c));

	if (!c)
		return LIBUSB_ERROR_NO_MEM;
	c->ep[0] = (struct libusb_endpoint_descriptor){ .bEndpointAddress = 0x80 | HOTSYNC_PORT,
							.bmAttributes = LIBUSB_TRANSFER_TYPE_BULK,
							.wMaxPacketSize = 64 };
	c->ep[1] = (struct libusb_endpoint_descriptor){ .bEndpointAddress = HOTSYNC_PORT,
							.bmAttributes = LIBUSB_TRANSFER_TYPE_BULK,
							.wMaxPacketSize = 64 };
	c->ep[2] =
		(struct libusb_endpoint_descriptor){ .bEndpointAddress = 0x83,
						     .bmAttributes = LIBUSB_TRANSFER_TYPE_INTERRUPT,
						     .wMaxPacketSize = 16 };
	c->alt = (struct libusb_interface_descriptor){
		.bNumEndpoints = dev->f->conninfo_on_interrupt ? 3 : 2, .endpoint = c->ep
	};
	c->itf = (struct libusb_interface){ .altsetting = &c->alt, .num_altsetting = 1 };
	c->cfg = (struct libusb_config_descriptor){ .bNumInterfaces = 1, .interface = &c->itf };
	*config = &c->cfg;
	return 0;
}

void libusb_free_config_descriptor(struct libusb_config_descriptor *config)
{
	free(config);
}

/* Under the lock: until dev is pulled out, FAKE_OPEN_WAIT_MS at most. */
static void wait_while_present(const struct libusb_device *dev)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until); /* the condition's clock */
	until.tv_sec += FAKE_OPEN_WAIT_MS / 1000;
	while (dev->present && pthread_cond_timedwait(&fk.pulled, &fk.lock, &until) == 0)
		;
}

int libusb_open(libusb_device *dev, libusb_device_handle **dev_handle)
{
	struct fake_dev *f = dev->f;
	struct libusb_device_handle *h;
	libusb_pollfd_added_cb added;
	void *user;
	int pipe[2];

	lock();
	if (f->open_waits)
		wait_while_present(dev);
	if (!dev->present) {
		unlock();
		return LIBUSB_ERROR_NO_DEVICE;
	}
	f->last_open_ms = loop_now_ms();
	if (!f->opens++)
		f->first_open_ms = f->last_open_ms;
	h = f->open_error ? NULL : calloc(1, sizeof(*h));
	if (!h || pipe2(pipe, O_CLOEXEC) < 0) {
		unlock();
		free(h);
		return f->open_error ? f->open_error : LIBUSB_ERROR_NO_MEM;
	}
	*h = (struct libusb_device_handle){
		.dev = dev, .fd = pipe[0], .write_end = pipe[1], .next = fk.handles
	};
	fk.handles = h;
	fk.nhandles++;
	dev->refs++; /* a handle holds its device */
	added = fk.fd_added;
	user = fk.fd_user;
	unlock();
	if (added)
		added(h->fd, POLLOUT, user);
	*dev_handle = h;
	return 0;
}

void libusb_close(libusb_device_handle *dev_handle)
{
	libusb_pollfd_removed_cb removed;
	void *user;

	lock();
	for (struct libusb_device_handle **p = &fk.handles; *p; p = &(*p)->next)
		if (*p == dev_handle) {
			*p = dev_handle->next;
			break;
		}
	fk.nhandles--;
	for (int i = 0; i < fk.nflight; i++)
		if (fk.flight[i].t->dev_handle == dev_handle)
			misuse("closed with a transfer in flight", dev_handle->dev);
	removed = fk.fd_removed;
	user = fk.fd_user;
	unlock();
	if (removed)
		removed(dev_handle->fd, user);
	close(dev_handle->fd);
	close(dev_handle->write_end);
	libusb_unref_device(dev_handle->dev);
	free(dev_handle);
}

int libusb_set_auto_detach_kernel_driver(libusb_device_handle *dev_handle, int enable)
{
	return 0;
}

int libusb_claim_interface(libusb_device_handle *dev_handle, int interface_number)
{
	struct libusb_device *dev = dev_handle->dev;
	int r = 0;

	lock();
	if (!dev->present)
		r = LIBUSB_ERROR_NO_DEVICE;
	else if (dev->f->claim_error && loop_now_ms() < dev->f->configured_ms)
		r = dev->f->claim_error;
	else
		dev->f->claimed = true;
	unlock();
	return r;
}

int libusb_release_interface(libusb_device_handle *dev_handle, int interface_number)
{
	lock();
	if (dev_handle->dev->present)
		dev_handle->dev->f->claimed = false;
	unlock();
	return dev_handle->dev->present ? 0 : LIBUSB_ERROR_NO_DEVICE;
}

/* ---- transfers ---- */

struct libusb_transfer *libusb_alloc_transfer(int iso_packets)
{
	return calloc(1, sizeof(struct libusb_transfer) +
				 (size_t)iso_packets * sizeof(struct libusb_iso_packet_descriptor));
}

void libusb_free_transfer(struct libusb_transfer *transfer)
{
	lock();
	for (int i = 0; i < fk.nflight; i++)
		if (fk.flight[i].t == transfer)
			misuse("a transfer freed in flight", transfer->dev_handle->dev);
	unlock();
	free(transfer);
}

/* As a Palm OS 4 handheld answers the set-up's requests (core/setup.h). */
static void answer_control(struct flight *fl)
{
	struct libusb_transfer *t = fl->t;
	const struct libusb_control_setup *s = libusb_control_transfer_get_setup(t);
	uint8_t *data = libusb_control_transfer_get_data(t);
	int want = libusb_le16_to_cpu(s->wLength);
	int len = 0;

	fl->done = true;
	fl->status = LIBUSB_TRANSFER_COMPLETED;
	if (s->bmRequestType == LIBUSB_RECIPIENT_ENDPOINT &&
	    s->bRequest == LIBUSB_REQUEST_CLEAR_FEATURE) {
		t->dev_handle->dev->f->clears++; /* cleared, if only until the next transfer */
		return;
	}
	if (s->bmRequestType != PALM_REQTYPE_VENDOR_IN) {
		fl->status = LIBUSB_TRANSFER_STALL; /* no other request is asked */
		return;
	}
	switch (s->bRequest) {
	case PALM_GET_EXT_CONNECTION_INFORMATION:
		if (t->dev_handle->dev->f->conninfo_on_interrupt)
			break; /* empty */
		/* one port, the same endpoint number both ways: HotSync ("cnys") */
		len = PALM_EXT_CONNINFO_LEN;
		memset(data, 0, (size_t)(want < len ? want : len));
		if (want >= len) {
			data[0] = 1;
			memcpy(data + 4, "cnys", 4);
			data[8] = HOTSYNC_PORT;
		}
		break;
	case VISOR_REQUEST_BYTES_AVAILABLE:
		len = 2;
		fl->ends_handshake = true;
		break;
	case VISOR_CLOSE_NOTIFICATION: len = VISOR_CLOSE_NOTIFICATION_LEN; break;
	default: fl->status = LIBUSB_TRANSFER_STALL;
	}
	fl->actual_length = len < want ? len : want;
}

/* A Treo 90's connection information, on its interrupt pipe. */
static void answer_interrupt(struct flight *fl)
{
	struct libusb_transfer *t = fl->t;
	struct fake_dev *f = t->dev_handle->dev->f;

	fl->done = true;
	if (!f->conninfo_on_interrupt || t->endpoint != 0x83 || t->length < PALM_EXT_CONNINFO_LEN) {
		fl->status = LIBUSB_TRANSFER_STALL;
		return;
	}
	f->interrupt_reads++;
	memset(t->buffer, 0, PALM_EXT_CONNINFO_LEN);
	t->buffer[0] = 1;
	memcpy(t->buffer + 4, "cnys", 4);
	t->buffer[8] = HOTSYNC_PORT;
	fl->status = LIBUSB_TRANSFER_COMPLETED;
	fl->actual_length = PALM_EXT_CONNINFO_LEN;
}

static void take_out(struct flight *fl)
{
	struct libusb_transfer *t = fl->t;
	struct fake_dev *f = t->dev_handle->dev->f;

	f->out_len = (size_t)t->length < FAKE_OUT_KEPT ? (size_t)t->length : FAKE_OUT_KEPT;
	memcpy(f->out, t->buffer, f->out_len);
	fl->done = true;
	fl->status = LIBUSB_TRANSFER_COMPLETED;
	fl->actual_length = t->length;
}

int libusb_submit_transfer(struct libusb_transfer *transfer)
{
	struct libusb_device *dev = transfer->dev_handle->dev;
	struct flight *fl;
	int r = 0;

	lock();
	if (!dev->present) {
		r = LIBUSB_ERROR_NO_DEVICE;
	} else if (transfer->type == LIBUSB_TRANSFER_TYPE_CONTROL && dev->f->ctrl_error) {
		r = dev->f->ctrl_error;
	} else if (transfer->type == LIBUSB_TRANSFER_TYPE_INTERRUPT && dev->f->interrupt_error) {
		r = dev->f->interrupt_error;
	} else if (fk.nflight == FLIGHT_MAX) {
		misuse("too many transfers in flight", dev);
		r = LIBUSB_ERROR_NO_MEM;
	} else {
		fl = &fk.flight[fk.nflight++];
		*fl = (struct flight){ .t = transfer };
		if (transfer->type == LIBUSB_TRANSFER_TYPE_CONTROL)
			answer_control(fl);
		else if (transfer->type == LIBUSB_TRANSFER_TYPE_INTERRUPT)
			answer_interrupt(fl);
		else if (!(transfer->endpoint & LIBUSB_ENDPOINT_IN))
			take_out(fl);
		else if (dev->f->in_halts)
			*fl = (struct flight){ .t = transfer,
					       .done = true,
					       .status = LIBUSB_TRANSFER_STALL };
		/* else an IN transfer waits: the handheld has nothing to say */
		if (fl->done)
			wake();
	}
	unlock();
	return r;
}

int libusb_cancel_transfer(struct libusb_transfer *transfer)
{
	int r = LIBUSB_ERROR_NOT_FOUND;

	lock();
	for (int i = 0; i < fk.nflight; i++) {
		struct flight *fl = &fk.flight[i];

		if (fl->t == transfer && !fl->done) {
			*fl = (struct flight){ .t = transfer,
					       .done = true,
					       .status = LIBUSB_TRANSFER_CANCELLED };
			wake();
			r = 0;
		}
	}
	unlock();
	return r;
}
