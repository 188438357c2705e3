// SPDX-License-Identifier: MIT
/*
 * ioctl decoding (core/tty.c tty_ioctl()) fed what a local user can send
 * through CUSE: any cmd and arg, argument bytes shorter or longer than
 * the structure, any room for the answer, 32-bit callers, and any state
 * of the port.  Each ioctl is checked as the CUSE edge would carry it
 * out: an answer fits the room given and the reply buffer; a fetch asks
 * for a sane size more than it had, and once given exactly that, does
 * not ask again (CUSE would loop); and the terminal stays coherent.
 *
 * Input: up to MAX_IOCTLS ioctls on one fresh terminal, each: which
 * (u8: an index into cmds[], or 0xff and the cmd as u32), arg (u8; bit 7
 * turns it into a large value), flags (u8: bit 0 compat, bit 1 carrier,
 * bit 2 drained), in_len (u8 % 64), out_len (u8 % 128), the queued bytes
 * (u16 each way), the counters (u32 each), the in bytes, a read size
 * (u16) for the read rule.
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <linux/serial.h>

#include "core/tty.h"
#include "fuzz_input.h"

#define MAX_IOCTLS 64
#define TIOCM_DTR  0x002
#define TIOCM_RTS  0x004

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Those tty_ioctl() knows, and a few it does not. */
static const unsigned int cmds[] = {
	TCGETS,	     TCGETS2,	 TCGETA,     TCSETS,	  TCSETSW,     TCSETSF,	 TCSETS2,
	TCSETSW2,    TCSETSF2,	 TCSETA,     TCSETAW,	  TCSETAF,     TCSBRK,	 TCSBRKP,
	TIOCSBRK,    TIOCCBRK,	 TCFLSH,     TCXONC,	  TIOCEXCL,    TIOCNXCL, TIOCGEXCL,
	FIONREAD,    TIOCOUTQ,	 TIOCMGET,   TIOCMSET,	  TIOCMBIS,    TIOCMBIC, TIOCMIWAIT,
	TIOCGICOUNT, TIOCGWINSZ, TIOCSWINSZ, TIOCGSERIAL, TIOCSSERIAL, TIOCSTI,	 TIOCSCTTY,
	FIONBIO,     TIOCGPGRP,	 TIOCSETD,   TIOCGSID,
};

static unsigned int read_cmd(struct input *in)
{
	uint8_t which = input_u8(in);

	if (which == 0xff)
		return input_u32(in);
	return cmds[which % (sizeof(cmds) / sizeof(cmds[0]))];
}

static uintptr_t read_arg(struct input *in)
{
	uint8_t a = input_u8(in);

	return a & 0x80 ? UINTPTR_MAX - (a & 0x7f) : a;
}

static void check_reply(const struct tty_ioctl *io, const struct tty_context *ctx,
			const struct tty_reply *r)
{
	FUZZ_CHECK(r->action == TTY_ANSWER || r->action == TTY_FETCH ||
		   r->action == TTY_WAIT_DRAIN || r->action == TTY_WAIT_MODEM);
	FUZZ_CHECK((r->flush & ~(TTY_FLUSH_IN | TTY_FLUSH_OUT)) == 0);
	FUZZ_CHECK(r->err == 0 || r->err == EINVAL || r->err == ENOTTY ||
		   (r->err == EPERM && !io->caller_admin &&
		    tty_ioctl_needs_admin(io->cmd)));
	/* without CAP_SYS_ADMIN no byte is injected (what a fetch returns
	 * again is checked on the second call) */
	if (!io->caller_admin)
		FUZZ_CHECK(!r->inject);
	if (r->err)
		FUZZ_CHECK(r->action == TTY_ANSWER && r->out_len == 0 && r->flush == 0);
	if (r->action == TTY_ANSWER)
		FUZZ_CHECK(r->out_len <= TTY_OUT_MAX && r->out_len <= io->out_len);
	if (r->action == TTY_WAIT_DRAIN)
		FUZZ_CHECK(!ctx->drained);
	if (r->action == TTY_FETCH) {
		FUZZ_CHECK(r->fetch_in <= TTY_OUT_MAX && r->fetch_out <= TTY_OUT_MAX);
		FUZZ_CHECK(r->fetch_in > io->in_len || r->fetch_out > io->out_len);
	}
}

static void check_tty(const struct tty *t, struct input *in)
{
	struct tty_read_rule rule = tty_read_rule(t, input_u16(in));

	FUZZ_CHECK((t->mctrl & ~(uint32_t)(TIOCM_DTR | TIOCM_RTS)) == 0);
	/* set_termios() in the kernel leaves the speed fields as c_cflag says */
	FUZZ_CHECK(t->termios.c_ispeed == tty_input_speed(&t->termios));
	FUZZ_CHECK(t->termios.c_ospeed == tty_output_speed(&t->termios));
	FUZZ_CHECK(rule.timeout_ms <= 255 * 100);
	FUZZ_CHECK(!rule.never_wait || rule.min == 0);
}

/* The ioctl again, as the kernel sends it after a fetch: exactly the
 * bytes asked for. */
static void refetch(struct tty *t, const struct tty_ioctl *first, const struct tty_context *ctx,
		    const struct tty_reply *r, struct input *in)
{
	struct tty_ioctl io = *first;
	struct tty_reply again;
	uint8_t *bytes = input_bytes(in, r->fetch_in);

	io.in = bytes;
	io.in_len = r->fetch_in;
	io.out_len = r->fetch_out;
	tty_ioctl(t, &io, ctx, &again);
	free(bytes);
	check_reply(&io, ctx, &again);
	FUZZ_CHECK(again.action != TTY_FETCH);
}

static void one_ioctl(struct tty *t, struct input *in)
{
	struct tty_ioctl io = { .cmd = read_cmd(in), .arg = read_arg(in) };
	uint8_t flags = input_u8(in);
	struct tty_context ctx = { .carrier = flags & 2, .drained = flags & 4 };
	struct tty_reply r;
	uint16_t closing_wait, close_delay;
	uint8_t *bytes;

	io.compat = flags & 1;
	io.caller_admin = flags & 8; /* root with its capabilities, or anyone */
	io.in_len = input_u8(in) % 64;
	io.out_len = input_u8(in) % 128;
	ctx.rx_queued = input_u16(in);
	ctx.tx_queued = input_u16(in);
	ctx.rx_bytes = input_u32(in);
	ctx.tx_bytes = input_u32(in);
	ctx.carrier_changes = input_u32(in);
	bytes = input_bytes(in, io.in_len);
	io.in = bytes;
	closing_wait = t->closing_wait;
	close_delay = t->close_delay;
	tty_ioctl(t, &io, &ctx, &r);
	free(bytes);
	check_reply(&io, &ctx, &r);
	if (r.action == TTY_FETCH)
		refetch(t, &io, &ctx, &r, in);
	/* only CAP_SYS_ADMIN changes the closing wait (TIOCSSERIAL) */
	if (!io.caller_admin)
		FUZZ_CHECK(t->closing_wait == closing_wait && t->close_delay == close_delay);
	check_tty(t, in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .p = data, .left = size };
	struct tty t;

	tty_init(&t);
	for (int i = 0; i < MAX_IOCTLS && in.left > 0; i++)
		one_ioctl(&t, &in);
	return 0;
}
