/* SPDX-License-Identifier: MIT */
/*
 * What the port's files (port.c, port_*.c) share; not for outside the port.
 */
#ifndef PILOTD_PORT_IMPL_H
#define PILOTD_PORT_IMPL_H

#include "port.h"

/*
 * Whose shares a request counts in (port.h "Bounds"): a kuid and a user
 * namespace; and whether its caller passes them: admin when known (an
 * open's), else the front is asked about req once one would be passed.
 */
struct port_cred {
	uint32_t uid;
	uint64_t userns;
	bool admin;
	/* an open's: port_open_args.input_key */
	uint64_t input_key;
	bool input_keyed;
	void *req; /* NULL: do not ask */
	uint64_t fh;
};

/* The uid of nobody's file: (uid_t)-1 is never a user's. */
#define PORT_NOBODY UINT32_MAX

static inline size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

static inline void due(struct port *p, unsigned int what)
{
	p->due |= what;
}

/* Lines to read: ICANON, unless EXTPROC leaves the editing to someone else (n_tty). */
static inline bool canonical(const struct port *p)
{
	return (p->tty.termios.c_lflag & (ICANON | EXTPROC)) == ICANON;
}

/* Bytes leave txq only once the handheld took them (port_tx_done). */
static inline bool output_drained(const struct port *p)
{
	return port_tx_queued(p) == 0;
}

/* port.c */
void port_run_due_hooks(struct port *p);
void port_push_events(struct port *p);
/* f's pollers were told its events: no news for them since */
void port_file_told(const struct port *p, struct port_file *f);

/*
 * Every answer leaves through these.  Where the kernel keeps the events
 * pilotd pushes (port.h push_events), what an answer changed is pushed
 * before it: the caller it wakes may poll at once, before the round ends.
 */
static inline int reply_open(struct port *p, void *req, uint64_t fh)
{
	port_push_events(p);
	return p->h.answer_open(p->h.ctx, req, fh);
}

static inline void reply_data(struct port *p, void *req, const void *buf, size_t len)
{
	port_push_events(p);
	p->h.answer_data(p->h.ctx, req, buf, len);
}

static inline void reply_written(struct port *p, void *req, size_t len)
{
	port_push_events(p);
	p->h.answer_written(p->h.ctx, req, len);
}

static inline void reply_ioctl(struct port *p, void *req, const void *out, size_t len)
{
	port_push_events(p);
	p->h.answer_ioctl(p->h.ctx, req, out, len);
}

static inline void reply_ioctl_fetch(struct port *p, void *req, uintptr_t arg, size_t in,
				     size_t out)
{
	port_push_events(p);
	p->h.answer_ioctl_fetch(p->h.ctx, req, arg, in, out);
}

static inline void reply_err(struct port *p, void *req, int err)
{
	port_push_events(p);
	p->h.answer_err(p->h.ctx, req, err);
}
/* port_files.c */
struct port_file *port_file_find(struct port *p, uint64_t fh);
void port_file_remove(struct port *p, uint64_t fh);
const char *port_park_bound(struct port *p, const struct parked_list *l, struct port_cred *who,
			    size_t size, size_t *value);
struct parked *port_park(struct port *p, struct parked_list *l, void *req, uint64_t fh,
			 struct port_cred who, const void *data, size_t size);
struct parked *port_unpark(struct port *p, struct parked_list *l, struct parked *e);
void port_answer_all(struct port *p, struct parked_list *l, uint64_t fh, int err);
void port_drop_buffered(struct port *p, struct parked *e);
void port_answer_interrupted(struct port *p, struct parked_list *l);
void port_open_now(struct port *p, void *req, struct port_cred who);
struct port_cred port_cred_of(struct port *p, uint64_t fh, void *req);
bool port_is_hung_up(struct port *p, uint64_t fh);
/* port_session.c */
bool port_may_open(const struct port *p, bool nonblock);
void port_end_closing(struct port *p, bool timed_out);
void port_last_close(struct port *p);
uint64_t port_closing_deadline(const struct port *p, uint64_t now);
/* port_io.c */
size_t port_rx_avail(const struct port *p, const struct port_file *f);
bool port_read_ready(const struct port *p, const struct port_file *f, size_t size,
		     uint64_t started_ms, uint64_t now, uint64_t *deadline);
void port_answer_read(struct port *p, void *req, const struct port_file *f, size_t size);
void port_start_listening(struct port *p, struct port_file *f);
void port_serve_reads(struct port *p, uint64_t now);
void port_serve_writes(struct port *p);
unsigned int port_current_events(const struct port *p, const struct port_file *f);
/* port_ioctl.c */
void port_flush_input(struct port *p);
void port_flush_output(struct port *p);
/* Answer whole the drains port_flush_output() dropped (before the writers go on). */
void port_answer_flushed_drains(struct port *p);
void port_serve_drains(struct port *p);
/* port_push.c */
bool port_settings_pushable(const struct termios2 *t);
struct port_file *port_input_held_by(struct port *p);
/* Ask for f's pushed bytes back; false: the kernel refused, nothing comes. */
bool port_take_back(struct port *p, struct port_file *f);
/* port_ioctl.c */
void port_serve_input_back(struct port *p);
/* port_ldisc.c */
void port_lines_clear(struct port *p);
void port_lines_add(struct port *p, size_t len);
void port_add_line(struct port *p, const uint8_t *bytes, size_t len);
void port_eofs_to_nul(struct port *p);
void port_lines_pop(struct port *p);
bool port_rx_held(const struct port *p);
void port_drop_rxq(struct port *p);
bool port_rxq_has_reader(const struct port *p);
void port_receive(struct port *p, const uint8_t *buf, size_t len, uint64_t now);
void port_process_echoes(struct port *p);

#endif
