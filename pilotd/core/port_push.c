// SPDX-License-Identifier: MIT
/*
 * The input the kernel keeps (kernel-patches/stream-data, issue 41): where
 * the kernel offered FUSE_NOTIFY_STREAM_DATA, the port pushes a file's
 * received bytes into the kernel's buffer of that file, and its read()s
 * take them there without a FUSE_READ.  pilotd does not set
 * FOPEN_STREAM_DATA: a read that finds the kernel's buffer empty still
 * comes here as a request (the fallback of the series), because the
 * kernel cannot take pushed bytes back and pilotd must still serve every
 * case the buffer cannot (a settings change, a second open, VMIN above 1).
 *
 * The rule (port_input_pushable()) is that a byte may go to the kernel
 * only when the kernel's read of it is the read n_tty would make, and
 * when nothing n_tty does later could take it back out of the input:
 *
 *   - non-canonical: a canonical read takes one line at most, and VERASE,
 *     VKILL and VWERASE take bytes back from the line (n_tty_read's
 *     canon_copy_from_read_buf(), eraser());
 *   - VMIN 0 or 1, VTIME any: n_tty_read() then returns as soon as it
 *     copied one byte or more, with all there is up to the read's size
 *     (minimum is 1 for VMIN 0, and the loop ends once kb - kbuf >=
 *     minimum; VTIME only bounds the wait when nothing is there, and then
 *     the kernel's buffer is empty and the read comes here, VTIME applied
 *     by port_read_ready()).  The kernel's read returns what its buffer
 *     holds, from one byte on: the same.  VMIN above 1 waits for that many;
 *     the kernel would return fewer;
 *   - no signal character that flushes: with ISIG and without NOFLSH,
 *     VINTR, VQUIT and VSUSP discard the input already queued (n_tty's
 *     isig(): reset_buffer_flags() unless L_NOFLSH), which pushed bytes
 *     would survive.  ECHO, IXON, PARMRK, ISTRIP and the mappings
 *     act on a byte as it arrives, in the port's discipline, before it is
 *     queued (n_tty_receive_char*()): what rxq holds is what n_tty's read
 *     buffer would, and pushing it changes nothing of theirs;
 *   - one open file: n_tty's input is the tty's, any file reads it; a
 *     pushed byte is readable through its own file alone.  A second open
 *     stops the pushes (what was pushed before stays the first file's:
 *     docs/tty-differences.md "Input pushed to the kernel");
 *   - the file is live, listens and is of rxq's session (the port's other
 *     rules: a hung-up file reads what it read before, then end of file);
 *   - order: pushes take rxq from its head, and only while no read is
 *     parked.  A parked read is answered from rxq first (a push would
 *     leave its bytes behind that answer); a read request comes only when
 *     the kernel's buffer is empty, and is answered from rxq's head, which
 *     follows every byte pushed.  A read() that found the buffer empty
 *     and whose request is not yet here: the kernel refuses pushes for
 *     the file with EBUSY from its check until the request is answered
 *     (the series' uapi comment), and the bytes stay first in rxq for that
 *     request, as for ENOSPC.  The front also pushes only when no request
 *     waits on /dev/cuse (EAGAIN), which saves writing a push that would
 *     be refused.
 *
 * Taking bytes back (FUSE_NOTIFY_STREAM_RETRIEVE, kernel-patches/stream-data
 * 0003): three ioctls need the bytes a read() has not taken yet, and where
 * the kernel offers it (part of CUSE_STREAM_DATA) the port asks for them
 * (port_hooks.take_back_input) and parks the ioctl until they are back at
 * rxq's head (port_input_returned()), before every byte that came later:
 *
 *   - an input flush (TCFLSH TCIFLUSH/TCIOFLUSH, TCSETSF): n_tty drops
 *     its whole read buffer; the bytes come back and go with rxq;
 *   - FIONREAD/TIOCINQ: n_tty counts its whole read buffer; answered
 *     with rxq's count once they are back;
 *   - a settings change that makes input no longer pushable (the rules
 *     above): what the kernel holds would be read as n_tty would not
 *     return it; they come back, then the settings apply (ICANON makes
 *     them part of a line, VMIN above 1 waits for more).
 *
 * Only a file whose pushes took since its last read request or take-back
 * (port_file.input_held) may hold bytes; a read request comes only when
 * its buffer is empty.  One take-back is out at a time, and no push goes
 * while it is (the kernel would refuse it with EBUSY anyway); every ioctl
 * that waits for it is answered once it ends, or at an interrupt, a
 * hangup, a release or shutdown as any parked ioctl.  A kernel that
 * refuses the take-back (ENOENT: the file is gone; EBUSY; EINVAL: it
 * cannot) sends nothing back: the ioctl is answered from rxq alone, as
 * without the series (docs/tty-differences.md), and after EINVAL no
 * take-back is tried again.
 *
 * The bound: rxq's, and the kernel's buffer of the file (4096 bytes),
 * which rxq keeps room for where take-backs may come (port_init()).  A
 * push the kernel refuses for room (ENOSPC) or for a read in flight
 * (EBUSY) leaves the bytes in rxq, in order; the next round pushes again,
 * and a read that finds the kernel's buffer empty comes here and takes
 * them.
 */
#include <errno.h>

#include "log.h"
#include "port_impl.h"

/* The settings under which the kernel's read of a pushed byte is n_tty's (above). */
bool port_settings_pushable(const struct termios2 *t)
{
	if (t->c_lflag & ICANON)
		return false;
	if (t->c_cc[VMIN] > 1)
		return false;
	if ((t->c_lflag & ISIG) && !(t->c_lflag & NOFLSH))
		return false;
	return true;
}

bool port_input_pushable(const struct port *p, const struct port_file *f)
{
	if (!p->h.push_input || p->input_push_off)
		return false;
	if (!f || !f->input_keyed || f->hung_up || !f->listening || !p->carrier)
		return false;
	if (p->nfiles != 1 || f->session != p->rxq_session)
		return false;
	if (p->reads.head || p->taking_back)
		return false;
	return port_settings_pushable(&p->tty.termios);
}

void port_push_input(struct port *p)
{
	uint8_t buf[PORT_PUSH_INPUT_MAX];
	struct port_file *f = p->files;

	while (byteq_len(&p->rxq) && port_input_pushable(p, f)) {
		size_t n = byteq_peek(&p->rxq, 0, buf, min_size(sizeof(buf), byteq_len(&p->rxq)));
		int err = p->h.push_input(p->h.ctx, f->input_key, buf, n);

		if (err == -ENOSPC || err == -EBUSY || err == -EAGAIN) {
			/* the bytes stay first in rxq; EBUSY: the read request
			 * in flight takes them; EAGAIN: the front serves the
			 * requests that wait first, a read among them */
			p->stats.input_push_full += err == -ENOSPC;
			p->stats.input_push_busy += err == -EBUSY;
			return;
		}
		if (err == -ENOENT) {
			f->input_keyed = false; /* the kernel released it: its release comes */
			return;
		}
		if (err < 0) {
			log_warn("the kernel refused input pushed for file %llu (%d): "
				 "reads come as requests from now on",
				 (unsigned long long)f->fh, err);
			p->input_push_off = true;
			return;
		}
		byteq_drop(&p->rxq, n);
		f->input_held = true;
		p->stats.rx_pushed += n;
		p->stats.input_pushes++;
		due(p, PORT_DUE_RX_ROOM);
	}
}

/* The file whose pushed bytes may wait in the kernel, of rxq's session; NULL: none. */
struct port_file *port_input_held_by(struct port *p)
{
	if (!p->h.take_back_input || p->take_back_off)
		return NULL;
	for (struct port_file *f = p->files; f; f = f->next)
		if (f->input_held && f->input_keyed && f->session == p->rxq_session)
			return f;
	return NULL;
}

bool port_take_back(struct port *p, struct port_file *f)
{
	int err;

	if (p->taking_back)
		return true;
	err = p->h.take_back_input(p->h.ctx, f->input_key);
	if (err == 0) {
		p->taking_back = true;
		p->take_back_key = f->input_key;
		p->take_back_session = f->session;
		p->stats.take_backs++;
		return true;
	}
	/* nothing comes back: answer from rxq, as without the series */
	f->input_held = false;
	if (err == -ENOENT) {
		f->input_keyed = false; /* the kernel released it: its release comes */
	} else if (err != -EBUSY) {
		log_warn("the kernel refused to give back input pushed for file %llu (%d): "
			 "FIONREAD and flushes see pilotd's bytes only from now on",
			 (unsigned long long)f->fh, err);
		p->take_back_off = true;
	}
	return false;
}

void port_input_returned(struct port *p, uint64_t key, const void *buf, size_t len)
{
	if (!p->taking_back || key != p->take_back_key) {
		log_warn("the kernel gave back %zu bytes pilotd did not ask for: dropped", len);
		p->stats.rx_discarded += len;
		return;
	}
	p->taking_back = false;
	for (struct port_file *f = p->files; f; f = f->next)
		if (f->input_keyed && f->input_key == key)
			f->input_held = false;
	/* a departure since: they were the old handheld's (port.h: one rxq, one session) */
	if (len && (p->take_back_session != p->rxq_session ||
		    byteq_unshift(&p->rxq, buf, len) != len)) {
		p->stats.rx_discarded += len;
	} else {
		p->stats.rx_taken_back += len;
	}
	port_serve_input_back(p);
	port_run_due_hooks(p);
}
