/* SPDX-License-Identifier: MIT */
/*
 * The terminal that /dev/pilot pretends to be: termios state and the tty
 * ioctls, answered as the kernel's tty layer answers them for a USB serial
 * port (drivers/tty/tty_ioctl.c, drivers/usb/serial/usb-serial.c).  Plain
 * C: the CUSE edge decodes a request into struct tty_ioctl, and carries out
 * what struct tty_reply says (fetch the argument, wait for the output to
 * drain, flush a queue, answer).
 *
 * The structures are the kernel's (<asm/termbits.h>), not glibc's: this
 * header must not meet <termios.h>.
 */
#ifndef PILOTD_TTY_H
#define PILOTD_TTY_H

#include <asm/termbits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tty {
	struct termios2 termios; /* the first 36 bytes are struct termios */
	struct termios2 locked;	 /* TIOCSLCKTRMIOS: set bits and c_cc that settings keep */
	uint32_t mctrl;		 /* TIOCM_DTR and TIOCM_RTS as set */
	uint16_t winsize[4];	 /* struct winsize: row, col, xpixel, ypixel */
	bool exclusive;		 /* TIOCEXCL: further opens fail with EBUSY */
	bool output_stopped;	 /* TCXONC TCOOFF */
	bool flow_stopped;	 /* IXON: the handheld sent STOP (n_tty's stop_tty()) */
	/* TIOCSSERIAL, in centiseconds; closing_wait 65535 is "none" */
	uint16_t close_delay, closing_wait;
	/* tty_set_termios() calls: n_tty wakes every poller at each, changed or not */
	uint64_t settings;
};

/* What the tty knows of the rest of pilotd when it answers. */
struct tty_context {
	size_t rx_queued, tx_queued;
	bool carrier; /* a handheld is attached */
	bool drained; /* nothing queued or in flight toward the handheld */
	uint64_t rx_bytes, tx_bytes, carrier_changes;
};

struct tty_ioctl {
	unsigned int cmd;
	uintptr_t arg;	/* a pointer or a value, depending on cmd */
	const void *in; /* the argument's bytes, once fetched */
	size_t in_len;
	size_t out_len; /* room given for the answer */
	bool compat;	/* a 32-bit caller */
	/*
	 * The calling thread has CAP_SYS_ADMIN (the CUSE edge asks
	 * /proc/TID/status, core/caps.h) for the commands that need it
	 * (tty_ioctl_needs_admin()), as the kernel's capable() checks; uid 0
	 * alone is not enough.
	 */
	bool caller_admin;
};

/* Does cmd do more for CAP_SYS_ADMIN?  TIOCSTI, TIOCSSERIAL's closing
 * wait, TIOCSLCKTRMIOS: the edge asks for the caller's rights only then. */
bool tty_ioctl_needs_admin(unsigned int cmd);

enum tty_action {
	TTY_ANSWER,	/* answer with err, or 0 and out[0..out_len) */
	TTY_FETCH,	/* ask the kernel again with fetch_in/fetch_out bytes at arg */
	TTY_WAIT_DRAIN, /* call again once the output has drained */
	TTY_WAIT_MODEM, /* TIOCMIWAIT: answer 0 when the carrier changes */
};

#define TTY_FLUSH_IN  1u
#define TTY_FLUSH_OUT 2u
#define TTY_OUT_MAX   96

struct tty_reply {
	enum tty_action action;
	int err;
	size_t fetch_in, fetch_out;
	uint8_t out[TTY_OUT_MAX];
	size_t out_len;
	unsigned int flush;  /* queues to empty before answering */
	bool output_changed; /* output_stopped or flow_stopped changed */
	bool send_xchar;     /* TCIOFF, TCION: send xchar ahead of the output */
	uint8_t xchar;
	bool inject; /* TIOCSTI: inject_byte is received as if from the handheld */
	uint8_t inject_byte;
};

/* The settings of a fresh USB serial port: 9600 8N1, cooked. */
void tty_init(struct tty *t);
void tty_ioctl(struct tty *t, const struct tty_ioctl *io, const struct tty_context *ctx,
	       struct tty_reply *r);

/*
 * TIOCMIWAIT with this mask ends when these lines changed; a handheld's
 * arrival or departure changes CD, DSR and CTS together, nothing else ever
 * changes (usb_serial_generic_msr_changed() compares per line).
 */
bool tty_modem_wait_wakes(uintptr_t mask, uint32_t changed);
#define TTY_CARRIER_LINES 0x160u /* TIOCM_CD | TIOCM_DSR | TIOCM_CTS */

/* The speeds the kernel derives from c_cflag (tty_termios_baud_rate()). */
uint32_t tty_output_speed(const struct termios2 *t);
uint32_t tty_input_speed(const struct termios2 *t);

/*
 * How a non-canonical read waits (VMIN/VTIME); a canonical one waits
 * for a complete line, which the port keeps track of (core/port_ldisc.c).
 */
struct tty_read_rule {
	size_t min;		 /* answer once this many bytes are there */
	unsigned int timeout_ms; /* with first_byte_timer: since the read began */
	bool interbyte;		 /* timeout_ms runs from the latest byte instead */
	bool never_wait;	 /* VMIN 0, VTIME 0 */
};

struct tty_read_rule tty_read_rule(const struct tty *t, size_t size);

#endif
