// SPDX-License-Identifier: MIT
/*
 * The libusb transport: finding, opening and closing a handheld
 * (link_libusb.c) and its transfers, the pump's I/O and the
 * connection-information handshake (link_libusb_io.c).
 */
#include <errno.h>
#include <libusb.h>
#include <stdint.h>

#include "core/log.h"
#include "core/palm.h"
#include "core/pump.h"
#include "core/setup.h"
#include "link_libusb_impl.h"
#include "usb_fds.h"

/* A call failed: note it (link_progress() lets the handheld go); -errno. */
static int submit_failed(struct usb_link *l, int r)
{
	if (r == LIBUSB_ERROR_NO_DEVICE) {
		l->departed = true;
		return -ENODEV;
	}
	if (!l->failure)
		l->failure = libusb_strerror(r);
	return -EIO;
}

static enum pump_status status_of(enum libusb_transfer_status st)
{
	switch (st) {
	case LIBUSB_TRANSFER_COMPLETED: return PUMP_OK;
	case LIBUSB_TRANSFER_CANCELLED: return PUMP_CANCELLED;
	case LIBUSB_TRANSFER_TIMED_OUT: return PUMP_TIMEOUT;
	case LIBUSB_TRANSFER_STALL: return PUMP_STALL;
	case LIBUSB_TRANSFER_OVERFLOW: return PUMP_BABBLE;
	case LIBUSB_TRANSFER_NO_DEVICE: return PUMP_GONE;
	default: return PUMP_ERROR;
	}
}

/* ---- the pump's I/O (core/pump.h): only what libusb does ---- */

static void in_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;
	int i = 0;

	while (l->in[i] != t)
		i++;
	pump_in_done(&l->pump, i, status_of(t->status), t->buffer,
		     t->actual_length > 0 ? (size_t)t->actual_length : 0);
}

static void out_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;

	pump_out_done(&l->pump, status_of(t->status),
		      t->actual_length > 0 ? (size_t)t->actual_length : 0);
}

static int io_submit_in(void *ctx, int slot, uint8_t *buf, size_t len)
{
	struct usb_link *l = ctx;
	int r;

	libusb_fill_bulk_transfer(l->in[slot], l->handle, l->hs.in_ep, buf, (int)len, in_done, l,
				  0);
	r = libusb_submit_transfer(l->in[slot]);
	return r < 0 ? submit_failed(l, r) : 0;
}

static int io_submit_out(void *ctx, const uint8_t *buf, size_t len)
{
	struct usb_link *l = ctx;
	int r;

	libusb_fill_bulk_transfer(l->out, l->handle, l->hs.out_ep, (uint8_t *)buf, (int)len,
				  out_done, l, 0);
	r = libusb_submit_transfer(l->out);
	return r < 0 ? submit_failed(l, r) : 0;
}

static void io_cancel_in(void *ctx, int slot)
{
	libusb_cancel_transfer(((struct usb_link *)ctx)->in[slot]);
}

static void io_cancel_out(void *ctx)
{
	libusb_cancel_transfer(((struct usb_link *)ctx)->out);
}

static int io_clear_halt(void *ctx, bool in)
{
	struct usb_link *l = ctx;
	const struct palm_ctrl req = pump_clear_halt_request(in ? l->hs.in_ep : l->hs.out_ep);

	l->halt_ep = (uint8_t)req.index;
	return usb_link_submit_ctrl(l, &req);
}

static int io_close_notification(void *ctx)
{
	struct usb_link *l = ctx;

	l->halt_ep = 0;
	return usb_link_submit_ctrl(l, &palm_close_notification);
}

const struct pump_io usb_link_pump_io = {
	.submit_in = io_submit_in,
	.submit_out = io_submit_out,
	.cancel_in = io_cancel_in,
	.cancel_out = io_cancel_out,
	.clear_halt = io_clear_halt,
	.close_notification = io_close_notification,
};

/* ---- the connection-information handshake ---- */

/* Inside a completion (or at the start, for a handheld asked nothing):
 * the carrier goes up at the pump's next drive. */
void usb_link_start_stream(struct usb_link *l)
{
	l->state = LINK_RUNNING;
	l->hs = l->setup.hs;
	pump_start(&l->pump, l->name, &l->hs, palm_setup_in_size(&l->setup, PUMP_IN_SIZE_MAX),
		   OUT_TRANSFER_MAX);
	/* core/setup.c logged the endpoints and why */
}

int usb_link_submit_ctrl(struct usb_link *l, const struct palm_ctrl *req)
{
	int r;

	if (l->ctrl_busy)
		return -EAGAIN;
	libusb_fill_control_setup(l->ctrl_buf, req->reqtype, req->request, req->value, req->index,
				  req->length);
	libusb_fill_control_transfer(l->ctrl, l->handle, l->ctrl_buf, l->ctrl->callback, l,
				     CTRL_TIMEOUT_MS);
	r = libusb_submit_transfer(l->ctrl);
	if (r < 0)
		return submit_failed(l, r);
	l->ctrl_busy = true;
	return 0;
}

int usb_link_submit_setup(struct usb_link *l, const struct palm_ctrl *req)
{
	struct palm_ctrl next;
	int r;

	if (!req->interrupt_in)
		return usb_link_submit_ctrl(l, req);
	if (l->ctrl_busy)
		return -EAGAIN;
	_Static_assert(sizeof(l->ctrl_buf) >= PALM_INTERRUPT_LEN_MAX, "the interrupt read fits");
	libusb_fill_interrupt_transfer(
		l->ctrl, l->handle, req->interrupt_in, l->ctrl_buf,
		req->length < PALM_INTERRUPT_LEN_MAX ? req->length : PALM_INTERRUPT_LEN_MAX,
		l->ctrl->callback, l, PALM_INTERRUPT_WAIT_MS);
	r = libusb_submit_transfer(l->ctrl);
	if (r == LIBUSB_ERROR_NO_DEVICE)
		return submit_failed(l, r);
	if (r < 0) {
		/* The kernel would not take the read (an endpoint usbfs does
		 * not have: EINVAL): the set-up goes on without it, as over
		 * usbredir when interrupt receiving is refused.  The next
		 * request is a control request (core/setup.c). */
		log_warn("%s: interrupt IN 0x%02x not read: %s", l->name, req->interrupt_in,
			 libusb_strerror(r));
		if (palm_setup_answer(&l->setup, PALM_ANSWER_FAILED, NULL, 0, &next)) {
			usb_link_start_stream(l);
			return 0;
		}
		return usb_link_submit_ctrl(l, &next);
	}
	l->ctrl_busy = true;
	return 0;
}

static enum palm_answer answer_of(enum libusb_transfer_status st)
{
	switch (st) {
	case LIBUSB_TRANSFER_COMPLETED: return PALM_ANSWER_OK;
	case LIBUSB_TRANSFER_STALL: return PALM_ANSWER_STALL;
	case LIBUSB_TRANSFER_TIMED_OUT: return PALM_ANSWER_TIMEOUT;
	default: return PALM_ANSWER_FAILED;
	}
}

void usb_link_ctrl_done(struct libusb_transfer *t)
{
	struct usb_link *l = t->user_data;
	struct palm_ctrl next;

	l->ctrl_busy = false;
	if (l->pump.ctrl != PUMP_CTRL_NONE) { /* the pump's: a clear, or the close */
		if (t->status == LIBUSB_TRANSFER_COMPLETED && l->halt_ep &&
		    usb_fds_reset_endpoint(&l->fds, l->dev, l->halt_ep) < 0)
			log_warn("%s: cannot reset the host side of endpoint 0x%02x; its next "
				 "packet may be lost",
				 l->name, l->halt_ep);
		pump_ctrl_done(&l->pump, status_of(t->status));
		return;
	}
	if (l->state != LINK_HANDSHAKE)
		return; /* a cancelled request */
	if (t->status == LIBUSB_TRANSFER_NO_DEVICE) {
		l->departed = true;
		return;
	}
	if (palm_setup_answer(&l->setup, answer_of(t->status),
			      t->type == LIBUSB_TRANSFER_TYPE_CONTROL
				      ? libusb_control_transfer_get_data(t)
				      : t->buffer,
			      t->actual_length > 0 ? (size_t)t->actual_length : 0, &next))
		usb_link_start_stream(l);
	else
		usb_link_submit_setup(l, &next);
}
