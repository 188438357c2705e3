// SPDX-License-Identifier: MIT
#include <asm/ioctls.h>
#include <errno.h>
#include <linux/serial.h>
#include <string.h>

#include "tty.h"

/* <asm/termios.h> would bring struct winsize and termio, which clash
 * with glibc; these are its values, fixed by the ABI. */
#define TIOCM_LE	     0x001
#define TIOCM_DTR	     0x002
#define TIOCM_RTS	     0x004
#define TIOCM_CTS	     0x020
#define TIOCM_CAR	     0x040
#define TIOCM_DSR	     0x100
#define TIOCM_CD	     TIOCM_CAR
#define N_TTY		     0	/* <linux/tty.h> */
#define TERMIO_SIZE	     18 /* struct termio: 4 x u16, c_line, c_cc[8], pad */
#define TERMIO_NCC	     8
#define TERMIOS_SIZE	     36
#define SERIAL_STRUCT_SIZE   72
#define SERIAL_STRUCT32_SIZE 60

_Static_assert(sizeof(struct termios2) == 44, "termios2 layout");
_Static_assert(sizeof(struct serial_struct) == SERIAL_STRUCT_SIZE, "serial_struct layout");
_Static_assert(sizeof(struct serial_icounter_struct) == 80, "icounter layout");

static const uint32_t baud_table[] = {
	0,	 50,	  75,	   110,	    134,     150,     200,     300,
	600,	 1200,	  1800,	   2400,    4800,    9600,    19200,   38400,
	57600,	 115200,  230400,  460800,  500000,  576000,  921600,  1000000,
	1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000,
};

static uint32_t speed_of(uint32_t cbaud, uint32_t other)
{
	if (cbaud == BOTHER)
		return other;
	if (cbaud & CBAUDEX)
		cbaud = (cbaud & ~CBAUDEX) + 15;
	return cbaud < sizeof(baud_table) / sizeof(baud_table[0]) ? baud_table[cbaud] : 0;
}

uint32_t tty_output_speed(const struct termios2 *t)
{
	return speed_of(t->c_cflag & CBAUD, t->c_ospeed);
}

uint32_t tty_input_speed(const struct termios2 *t)
{
	uint32_t cbaud = (t->c_cflag >> IBSHIFT) & CBAUD;

	if (cbaud == B0)
		return tty_output_speed(t);
	return speed_of(cbaud, t->c_ispeed);
}

void tty_init(struct tty *t)
{
	/* tty_std_termios, with usb-serial's c_cflag (usb_serial_init) */
	static const uint8_t init_cc[NCCS] =
		"\003\034\177\025\004\0\1\0\021\023\032\0\022\017\027\026\0";

	memset(t, 0, sizeof(*t));
	t->termios.c_iflag = ICRNL | IXON;
	t->termios.c_oflag = OPOST | ONLCR;
	t->termios.c_cflag = B9600 | CS8 | CREAD | HUPCL | CLOCAL;
	t->termios.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN;
	memcpy(t->termios.c_cc, init_cc, sizeof(t->termios.c_cc));
	t->termios.c_ispeed = t->termios.c_ospeed = 9600;
	t->mctrl = TIOCM_DTR | TIOCM_RTS;
	t->close_delay = 50;	/* 0.5 s in centiseconds, tty_port_init() */
	t->closing_wait = 3000; /* 30 s */
}

/*
 * The visor driver has no set_termios, so usb-serial's serial_set_termios()
 * calls tty_termios_copy_hw(): of c_cflag only HUPCL, CREAD and CLOCAL take
 * the new value; speed, CSIZE, parity, stop bits, CRTSCTS and CMSPAR stay
 * as they were, and so do both speed fields.
 */
#define CFLAG_SOFT (HUPCL | CREAD | CLOCAL)

static void keep_hardware_bits(struct tty *t, const struct termios2 *old)
{
	t->termios.c_cflag = (t->termios.c_cflag & CFLAG_SOFT) | (old->c_cflag & ~CFLAG_SOFT);
	t->termios.c_ispeed = old->c_ispeed;
	t->termios.c_ospeed = old->c_ospeed;
}

/* tty_set_termios()'s unset_locked_termios(): what TIOCSLCKTRMIOS locked keeps its value. */
static void keep_locked(struct tty *t, const struct termios2 *old)
{
	struct termios2 *n = &t->termios;
	const struct termios2 *l = &t->locked;

	n->c_iflag = (n->c_iflag & ~l->c_iflag) | (old->c_iflag & l->c_iflag);
	n->c_oflag = (n->c_oflag & ~l->c_oflag) | (old->c_oflag & l->c_oflag);
	n->c_cflag = (n->c_cflag & ~l->c_cflag) | (old->c_cflag & l->c_cflag);
	n->c_lflag = (n->c_lflag & ~l->c_lflag) | (old->c_lflag & l->c_lflag);
	if (l->c_line)
		n->c_line = old->c_line;
	for (int i = 0; i < NCCS; i++)
		if (l->c_cc[i])
			n->c_cc[i] = old->c_cc[i];
}

static void set_termios(struct tty *t, const void *in, size_t len)
{
	struct termios2 old = t->termios;

	memcpy(&t->termios, in, len);
	keep_locked(t, &old);
	keep_hardware_bits(t, &old);
	t->settings++;
}

/* struct termio keeps the low 16 bits of each flag word (SET_LOW_TERMIOS_BITS) */
static void set_termio(struct tty *t, const uint8_t *in)
{
	uint32_t *flags[4] = { &t->termios.c_iflag, &t->termios.c_oflag, &t->termios.c_cflag,
			       &t->termios.c_lflag };
	struct termios2 old = t->termios;

	for (int i = 0; i < 4; i++) {
		uint16_t low;

		memcpy(&low, in + 2 * i, 2);
		*flags[i] = (*flags[i] & 0xffff0000u) | low;
	}
	t->termios.c_line = in[8];
	memcpy(t->termios.c_cc, in + 9, TERMIO_NCC);
	keep_locked(t, &old);
	keep_hardware_bits(t, &old);
	t->settings++;
}

static void get_termio(const struct tty *t, uint8_t *out)
{
	const uint32_t flags[4] = { t->termios.c_iflag, t->termios.c_oflag, t->termios.c_cflag,
				    t->termios.c_lflag };

	memset(out, 0, TERMIO_SIZE);
	for (int i = 0; i < 4; i++) {
		uint16_t low = (uint16_t)flags[i];

		memcpy(out + 2 * i, &low, 2);
	}
	out[8] = t->termios.c_line;
	memcpy(out + 9, t->termios.c_cc, TERMIO_NCC);
}

static void answer(struct tty_reply *r, const void *data, size_t len)
{
	r->action = TTY_ANSWER;
	memcpy(r->out, data, len);
	r->out_len = len;
}

static void answer_int(struct tty_reply *r, int v)
{
	answer(r, &v, sizeof(v));
}

/* True when the argument is there; otherwise asks for it. */
static bool have(const struct tty_ioctl *io, struct tty_reply *r, size_t in, size_t out)
{
	if (io->in_len >= in && io->out_len >= out)
		return true;
	r->action = TTY_FETCH;
	r->fetch_in = in;
	r->fetch_out = out;
	return false;
}

static int modem_lines(const struct tty *t, const struct tty_context *ctx)
{
	return (int)(t->mctrl & (TIOCM_DTR | TIOCM_RTS)) |
	       (ctx->carrier ? TIOCM_CTS | TIOCM_DSR | TIOCM_CAR : 0);
}

static size_t serial_size(const struct tty_ioctl *io)
{
	return io->compat ? SERIAL_STRUCT32_SIZE : SERIAL_STRUCT_SIZE;
}

/*
 * What usb-serial's serial_get_serial() fills in, all else zero (type
 * PORT_UNKNOWN, no FIFO, no baud_base): the line is the tty's minor, and
 * the node pilotd registers has minor 0.  The fields up to closing_wait sit
 * at the same offsets in the 32-bit layout, which only ends differently (a
 * 32-bit iomem_base and no iomap_base).
 */
static void get_serial(const struct tty *t, const struct tty_ioctl *io, struct tty_reply *r)
{
	struct serial_struct ss;

	memset(&ss, 0, sizeof(ss));
	ss.line = 0;
	ss.close_delay = t->close_delay;
	ss.closing_wait = t->closing_wait;
	answer(r, &ss, serial_size(io));
}

/*
 * serial_set_serial(): only close_delay and closing_wait are kept, and
 * changing either takes CAP_SYS_ADMIN of the caller; flags such as
 * ASYNC_LOW_LATENCY are accepted and forgotten.
 */
static void set_serial(struct tty *t, const struct tty_ioctl *io, struct tty_reply *r)
{
	struct serial_struct ss;

	if (!have(io, r, serial_size(io), 0))
		return;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, io->in, serial_size(io));
	r->action = TTY_ANSWER;
	if (!io->caller_admin &&
	    (ss.close_delay != t->close_delay || ss.closing_wait != t->closing_wait)) {
		r->err = EPERM;
		return;
	}
	t->close_delay = ss.close_delay;
	t->closing_wait = ss.closing_wait;
}

/* usb-serial has a break_ctl that answers -ENOTTY for visor (serial_break). */
static void break_ioctl(const struct tty_ioctl *io, const struct tty_context *ctx,
			struct tty_reply *r)
{
	/* tty_ioctl() waits until sent first, for all but TIOCCBRK */
	if (io->cmd != TIOCCBRK && !ctx->drained) {
		r->action = TTY_WAIT_DRAIN;
		return;
	}
	/* tcdrain() is TCSBRK with a non-zero argument: no break, only the wait */
	if (io->cmd == TCSBRK && io->arg != 0)
		return;
	r->err = ENOTTY;
}

/* pilotd has only N_TTY; the kernel refuses numbers beyond NR_LDISCS. */
/* tty_ioctl() waits until sent before TIOCSETD, as before a break */
static void set_ldisc(const struct tty_ioctl *io, const struct tty_context *ctx,
		      struct tty_reply *r)
{
	int ldisc;

	if (!ctx->drained) {
		r->action = TTY_WAIT_DRAIN;
		return;
	}
	if (!have(io, r, sizeof(int), 0))
		return;
	memcpy(&ldisc, io->in, sizeof(ldisc));
	r->action = TTY_ANSWER;
	if (ldisc != N_TTY)
		r->err = EINVAL;
}

bool tty_ioctl_needs_admin(unsigned int cmd)
{
	return cmd == TIOCSTI || cmd == TIOCSSERIAL || cmd == TIOCSLCKTRMIOS;
}

bool tty_modem_wait_wakes(uintptr_t mask, uint32_t changed)
{
	return (mask & changed & (TIOCM_CD | TIOCM_DSR | TIOCM_CTS)) != 0;
}

static void get_icount(const struct tty_context *ctx, struct tty_reply *r)
{
	struct serial_icounter_struct ic;

	memset(&ic, 0, sizeof(ic));
	ic.dcd = (int)ctx->carrier_changes;
	ic.rx = (int)ctx->rx_bytes;
	ic.tx = (int)ctx->tx_bytes;
	answer(r, &ic, sizeof(ic));
}

/* The ioctls that change settings: fetch, maybe drain and flush, store. */
static void set_ioctl(struct tty *t, const struct tty_ioctl *io, const struct tty_context *ctx,
		      struct tty_reply *r, size_t size, bool drain, bool flush_in)
{
	if (!have(io, r, size, 0))
		return;
	if (drain && !ctx->drained) {
		r->action = TTY_WAIT_DRAIN;
		return;
	}
	if (flush_in)
		r->flush = TTY_FLUSH_IN;
	if (size == TERMIO_SIZE)
		set_termio(t, io->in);
	else
		set_termios(t, io->in, size);
	r->action = TTY_ANSWER;
}

static void flush_ioctl(const struct tty_ioctl *io, struct tty_reply *r)
{
	switch (io->arg) {
	case TCIFLUSH: r->flush = TTY_FLUSH_IN; break;
	case TCOFLUSH: r->flush = TTY_FLUSH_OUT; break;
	case TCIOFLUSH: r->flush = TTY_FLUSH_IN | TTY_FLUSH_OUT; break;
	default: r->err = EINVAL; break;
	}
}

static void xonc_ioctl(struct tty *t, const struct tty_ioctl *io, struct tty_reply *r)
{
	switch (io->arg) {
	case TCOOFF:
		r->output_changed = !t->output_stopped;
		t->output_stopped = true;
		break;
	case TCOON:
		/* __start_tty(): a STOP from the handheld is forgotten too */
		r->output_changed = t->output_stopped;
		if (t->output_stopped)
			t->output_stopped = t->flow_stopped = false;
		break;
	case TCIOFF:
	case TCION:
		/* n_tty_ioctl_helper(): the character, unless it is disabled */
		r->xchar = t->termios.c_cc[io->arg == TCIOFF ? VSTOP : VSTART];
		r->send_xchar = r->xchar != 0;
		break;
	default: r->err = EINVAL; break;
	}
}

/*
 * TIOCSTI: the byte goes through the line discipline as if the handheld
 * had sent it.  /dev/pilot is never the caller's controlling terminal, so
 * only a caller with CAP_SYS_ADMIN may, as tiocsti() checks before it
 * reads the byte.
 */
static void sti_ioctl(const struct tty_ioctl *io, struct tty_reply *r)
{
	if (!io->caller_admin) {
		r->err = EPERM;
		return;
	}
	if (!have(io, r, 1, 0))
		return;
	r->action = TTY_ANSWER;
	r->inject = true;
	r->inject_byte = *(const uint8_t *)io->in;
}

/* tty_mode_ioctl(): TIOCGSOFTCAR, TIOCSSOFTCAR (CLOCAL), the locked settings. */
static void softcar_lock_ioctl(struct tty *t, const struct tty_ioctl *io, struct tty_reply *r)
{
	struct termios2 want = t->termios;
	int v;

	switch (io->cmd) {
	case TIOCGSOFTCAR:
		if (have(io, r, 0, sizeof(int)))
			answer_int(r, (t->termios.c_cflag & CLOCAL) ? 1 : 0);
		break;
	case TIOCSSOFTCAR: /* tty_change_softcar(): through tty_set_termios() */
		if (!have(io, r, sizeof(int), 0))
			break;
		memcpy(&v, io->in, sizeof(v));
		want.c_cflag = (want.c_cflag & ~CLOCAL) | (v ? CLOCAL : 0);
		set_termios(t, &want, sizeof(want));
		r->action = TTY_ANSWER;
		break;
	case TIOCGLCKTRMIOS:
		if (have(io, r, 0, TERMIOS_SIZE))
			answer(r, &t->locked, TERMIOS_SIZE);
		break;
	case TIOCSLCKTRMIOS:
		/* CAP_SYS_ADMIN, asked before the argument is read */
		if (!io->caller_admin)
			r->err = EPERM;
		else if (have(io, r, TERMIOS_SIZE, 0))
			memcpy(&t->locked, io->in, TERMIOS_SIZE);
		break;
	}
}

static void modem_ioctl(struct tty *t, const struct tty_ioctl *io, struct tty_reply *r)
{
	uint32_t v;

	if (!have(io, r, sizeof(int), 0))
		return;
	memcpy(&v, io->in, sizeof(v));
	v &= TIOCM_DTR | TIOCM_RTS; /* the lines a host can drive */
	if (io->cmd == TIOCMBIS)
		t->mctrl |= v;
	else if (io->cmd == TIOCMBIC)
		t->mctrl &= ~v;
	else
		t->mctrl = v;
	r->action = TTY_ANSWER;
}

void tty_ioctl(struct tty *t, const struct tty_ioctl *io, const struct tty_context *ctx,
	       struct tty_reply *r)
{
	memset(r, 0, sizeof(*r));
	r->action = TTY_ANSWER;

	switch (io->cmd) {
	case TCGETS:
		if (have(io, r, 0, TERMIOS_SIZE))
			answer(r, &t->termios, TERMIOS_SIZE);
		break;
	case TCGETS2:
		if (have(io, r, 0, sizeof(t->termios)))
			answer(r, &t->termios, sizeof(t->termios));
		break;
	case TCGETA:
		if (have(io, r, 0, TERMIO_SIZE)) {
			get_termio(t, r->out);
			r->out_len = TERMIO_SIZE;
		}
		break;
	case TCSETS: set_ioctl(t, io, ctx, r, TERMIOS_SIZE, false, false); break;
	case TCSETSW: set_ioctl(t, io, ctx, r, TERMIOS_SIZE, true, false); break;
	case TCSETSF: set_ioctl(t, io, ctx, r, TERMIOS_SIZE, true, true); break;
	case TCSETS2: set_ioctl(t, io, ctx, r, sizeof(t->termios), false, false); break;
	case TCSETSW2: set_ioctl(t, io, ctx, r, sizeof(t->termios), true, false); break;
	case TCSETSF2: set_ioctl(t, io, ctx, r, sizeof(t->termios), true, true); break;
	case TCSETA: set_ioctl(t, io, ctx, r, TERMIO_SIZE, false, false); break;
	case TCSETAW: set_ioctl(t, io, ctx, r, TERMIO_SIZE, true, false); break;
	case TCSETAF: set_ioctl(t, io, ctx, r, TERMIO_SIZE, true, true); break;
	case TCSBRK:
	case TCSBRKP:
	case TIOCSBRK:
	case TIOCCBRK: break_ioctl(io, ctx, r); break;
	case TIOCGETD:
		if (have(io, r, 0, sizeof(int)))
			answer_int(r, N_TTY);
		break;
	case TIOCSETD: set_ldisc(io, ctx, r); break;
	case TCFLSH: flush_ioctl(io, r); break;
	case TCXONC: xonc_ioctl(t, io, r); break;
	case TIOCSTI: sti_ioctl(io, r); break;
	case TIOCEXCL: t->exclusive = true; break;
	case TIOCNXCL: t->exclusive = false; break;
	case TIOCGEXCL:
		if (have(io, r, 0, sizeof(int)))
			answer_int(r, t->exclusive);
		break;
	case FIONREAD:
		if (have(io, r, 0, sizeof(int)))
			answer_int(r, (int)ctx->rx_queued);
		break;
	case TIOCOUTQ:
		if (have(io, r, 0, sizeof(int)))
			answer_int(r, (int)ctx->tx_queued);
		break;
	case TIOCMGET:
		if (have(io, r, 0, sizeof(int)))
			answer_int(r, modem_lines(t, ctx));
		break;
	case TIOCMSET:
	case TIOCMBIS:
	case TIOCMBIC: modem_ioctl(t, io, r); break;
	case TIOCMIWAIT: r->action = TTY_WAIT_MODEM; break;
	case TIOCGICOUNT:
		if (have(io, r, 0, sizeof(struct serial_icounter_struct)))
			get_icount(ctx, r);
		break;
	case TIOCGWINSZ:
		if (have(io, r, 0, sizeof(t->winsize)))
			answer(r, t->winsize, sizeof(t->winsize));
		break;
	case TIOCSWINSZ:
		if (have(io, r, sizeof(t->winsize), 0))
			memcpy(t->winsize, io->in, sizeof(t->winsize));
		break;
	case TIOCGSERIAL:
		if (have(io, r, 0, serial_size(io)))
			get_serial(t, io, r);
		break;
	case TIOCSSERIAL: set_serial(t, io, r); break;
	case TIOCGSOFTCAR:
	case TIOCSSOFTCAR:
	case TIOCGLCKTRMIOS:
	case TIOCSLCKTRMIOS: softcar_lock_ioctl(t, io, r); break;
	/* TIOCGDEV: no number of the tty layer's to give (docs/tty-differences.md) */
	default: r->err = ENOTTY; break;
	}
}

struct tty_read_rule tty_read_rule(const struct tty *t, size_t size)
{
	struct tty_read_rule rule = { .min = 1 };
	unsigned int vmin = t->termios.c_cc[VMIN], vtime = t->termios.c_cc[VTIME];

	if (t->termios.c_lflag & ICANON)
		return rule;
	if (vmin == 0 && vtime == 0) {
		rule.min = 0;
		rule.never_wait = true;
		return rule;
	}
	rule.timeout_ms = vtime * 100;
	if (vmin == 0)
		return rule; /* one byte, or nothing after VTIME */
	rule.min = vmin < size ? vmin : size;
	rule.interbyte = vtime > 0;
	return rule;
}
