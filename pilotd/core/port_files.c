// SPDX-License-Identifier: MIT
/*
 * The port's open files and the bounds on what their users make it hold:
 * files, parked requests, the bytes of parked writes (port.h "Bounds"),
 * and answering parked requests at a release, an interrupt or a stop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "port_impl.h"
#include "trace.h"

struct port_file *port_file_find(struct port *p, uint64_t fh)
{
	for (struct port_file *f = p->files; f; f = f->next)
		if (f->fh == fh)
			return f;
	return NULL;
}

void port_file_remove(struct port *p, uint64_t fh)
{
	for (struct port_file **pp = &p->files; *pp; pp = &(*pp)->next) {
		struct port_file *f = *pp;

		if (f->fh != fh)
			continue;
		*pp = f->next;
		p->nfiles--;
		if (!f->hung_up)
			p->live_files--;
		if (!f->hung_up && f->listening)
			p->listening--;
		if (f->poll_handle)
			p->h.drop_poll_handle(p->h.ctx, f->poll_handle);
		free(f);
		return;
	}
}

size_t port_parked_count(const struct port *p)
{
	return p->reads.count + p->writes.count + p->ioctls.count + p->opens.count;
}

/* A bound was reached: answer err at once, and say so (not every time). */
static void refuse(struct port *p, void *req, int err, const char *bound, size_t value)
{
	if (p->stats.refused++ % 1000 == 0)
		log_warn("refused a request (%s): at most %zu %s; %llu refused so far",
			 strerror(err), value, bound, (unsigned long long)p->stats.refused);
	reply_err(p, req, err);
}

/*
 * The shares of a bound (port.h "Bounds"): a quarter for one kuid, a
 * quarter for one other user namespace (or the unseen callers), half for
 * all other namespaces and the unseen callers together.
 */
enum { SHARE_USER, SHARE_USERNS, SHARE_OTHER_USERNS, SHARES };

static const char *const share_names[][SHARES] = {
	{ "open files of one user", "open files of one other user namespace",
	  "open files of other user namespaces" },
	{ "waiting requests of one user", "waiting requests of one other user namespace",
	  "waiting requests of other user namespaces" },
	{ "bytes of waiting writes of one user",
	  "bytes of waiting writes of one other user namespace",
	  "bytes of waiting writes of other user namespaces" },
};
enum { OF_FILES, OF_REQUESTS, OF_WRITE_BYTES };

static size_t share_of(unsigned int share, size_t bound)
{
	return share == SHARE_OTHER_USERNS ? bound / 2 : bound / 4;
}

/* What one holder (a file's opener, a parked request's) holds of who's shares. */
static void count_holder(size_t held[SHARES], uint32_t uid, uint64_t userns,
			 const struct port_cred *who, size_t n)
{
	held[SHARE_USER] += uid == who->uid ? n : 0;
	held[SHARE_USERNS] += userns == who->userns ? n : 0;
	held[SHARE_OTHER_USERNS] += userns != PORT_USERNS_OWN ? n : 0;
}

/*
 * The first of who's shares that adding add to held would pass, or -1.
 * A caller of pilotd's own namespace has only the first.
 */
static int share_passed(const size_t held[SHARES], size_t add, size_t bound,
			const struct port_cred *who, size_t *value)
{
	unsigned int shares = who->userns == PORT_USERNS_OWN ? 1 : SHARES;

	for (unsigned int i = 0; i < shares; i++) {
		*value = share_of(i, bound);
		if (held[i] + add > *value)
			return (int)i;
	}
	return -1;
}

/* May who pass its shares?  The front is asked about its request once, at the first need. */
static bool passes_shares(struct port *p, struct port_cred *who)
{
	if (!who->admin && who->req && p->h.caller_admin)
		who->admin = p->h.caller_admin(p->h.ctx, who->req, who->fh);
	who->req = NULL;
	return who->admin;
}

/* What who's shares hold parked: requests, and the bytes of writes. */
static void parked_in_shares(const struct port *p, const struct port_cred *who,
			     size_t requests[SHARES], size_t write_bytes[SHARES])
{
	const struct parked_list *lists[] = { &p->reads, &p->writes, &p->ioctls, &p->opens };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		for (const struct parked *e = lists[i]->head; e; e = e->next) {
			count_holder(requests, e->uid, e->userns, who, 1);
			if (lists[i] == &p->writes)
				count_holder(write_bytes, e->uid, e->userns, who, e->size);
		}
	}
}

/* The bound that one more request of who waiting in l would pass, or NULL. */
const char *port_park_bound(struct port *p, const struct parked_list *l, struct port_cred *who,
			    size_t size, size_t *value)
{
	size_t requests[SHARES] = { 0 }, bytes[SHARES] = { 0 };
	size_t write_size = l == &p->writes ? size : 0;
	int share;

	*value = p->cfg.parked_max;
	if (port_parked_count(p) >= p->cfg.parked_max)
		return "waiting requests";
	*value = p->cfg.parked_write_bytes;
	if (p->parked_write_bytes + write_size > *value)
		return "bytes of waiting writes";
	parked_in_shares(p, who, requests, bytes);
	share = share_passed(requests, 1, p->cfg.parked_max, who, value);
	if (share >= 0 && !passes_shares(p, who))
		return share_names[OF_REQUESTS][share];
	share = share_passed(bytes, write_size, p->cfg.parked_write_bytes, who, value);
	if (share >= 0 && !passes_shares(p, who))
		return share_names[OF_WRITE_BYTES][share];
	return NULL;
}

struct parked *port_park(struct port *p, struct parked_list *l, void *req, uint64_t fh,
			 struct port_cred who, const void *data, size_t size)
{
	size_t value;
	const char *bound = port_park_bound(p, l, &who, size, &value);
	struct parked *e;

	if (bound) {
		refuse(p, req, ENOBUFS, bound, value);
		return NULL;
	}
	e = parked_add(l, req, fh, data, size);
	if (!e) {
		reply_err(p, req, ENOMEM);
		return NULL;
	}
	e->uid = who.uid;
	e->userns = who.userns;
	e->admin = who.admin;
	e->input_key = who.input_key;
	e->input_keyed = who.input_keyed;
	if (l == &p->writes)
		p->parked_write_bytes += size;
	p->h.parked(p->h.ctx, req); /* may mark it interrupted at once */
	return e;
}

/* Take e off l: the caller now must answer e->req and free e. */
struct parked *port_unpark(struct port *p, struct parked_list *l, struct parked *e)
{
	parked_take(l, e);
	if (l == &p->writes)
		p->parked_write_bytes -= e->size;
	return e;
}

/* A write that queued part of its bytes answers with that count instead, as n_tty does. */
static void answer_err_free(struct port *p, struct parked *e, int err)
{
	if (e->done)
		reply_written(p, e->req, e->done);
	else
		reply_err(p, e->req, err);
	parked_free(e);
}

/* Answer every parked request in l that belongs to fh with err. */
void port_answer_all(struct port *p, struct parked_list *l, uint64_t fh, int err)
{
	struct parked *e;

	while ((e = parked_first_of(l, fh)))
		answer_err_free(p, port_unpark(p, l, e), err);
}

/*
 * A drain of the kernel's write buffer (port.h port_write_buffered()) whose
 * bytes are dropped: answered as taken, all of them, since its write()
 * returned long ago; the bytes not yet queued count as flushed (an output
 * flush counted them already).  e is off its list; this answers and frees
 * it.
 */
void port_drop_buffered(struct port *p, struct parked *e)
{
	if (!e->flushed)
		p->stats.tx_flushed += e->size - e->done;
	reply_written(p, e->req, e->size);
	parked_free(e);
}

void port_answer_interrupted(struct port *p, struct parked_list *l)
{
	struct parked *first = l->head, *e;

	while ((e = parked_first_interrupted(l))) {
		struct port_file *f = port_file_find(p, e->fh);

		port_unpark(p, l, e);
		/*
		 * n_tty copies bytes to the reader it serves as they come, and a
		 * signal then ends the read with them: a non-canonical read short
		 * of VMIN returns what is there.  The other readers wait for
		 * that one and get EINTR.
		 */
		if (l == &p->reads && e == first && !canonical(p) && port_rx_avail(p, f)) {
			port_answer_read(p, e->req, f, e->size);
			parked_free(e);
		} else if (e->buffered) {
			/*
			 * The kernel interrupts a drain only at the release of
			 * its file, once the closing wait is over: what was not
			 * sent is dropped, as a tty port drops its driver's
			 * buffer then (tty_port_close_start()).
			 */
			port_drop_buffered(p, e);
		} else {
			answer_err_free(p, e, EINTR);
		}
	}
}

void port_interrupt(struct port *p, void *req)
{
	struct parked_list *lists[] = { &p->reads, &p->writes, &p->ioctls, &p->opens };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct parked *e = parked_find(lists[i], req);

		if (e) {
			e->interrupted = true;
			p->interrupts_pending = true;
			return;
		}
	}
}

/*
 * The last close is that of the session's last live file, as a tty's is
 * of its own tty_struct: a file hung up by a departure belongs to the old
 * handheld's tty, which the departure already closed, so keeping one open
 * holds nothing of the next session (its TIOCEXCL, stopped output, closing
 * wait and close notification).
 */
static void release_file(struct port *p, uint64_t fh)
{
	struct port_file *f = port_file_find(p, fh);
	bool live = f && !f->hung_up;

	if (f)
		f->push_keyed = false; /* the kernel forgot it before the release */
	if (f && p->trace)
		trace_event(p->trace, "close %llu%s", (unsigned long long)fh,
			    live && p->live_files == 1 ? " (the last)" : "");
	port_answer_all(p, &p->reads, fh, EIO);
	port_answer_all(p, &p->writes, fh, EIO);
	port_answer_all(p, &p->ioctls, fh, EIO);
	port_file_remove(p, fh);
	/* nobody is left to read them, and no later opener may */
	if (port_rx_held(p) && !port_rxq_has_reader(p))
		port_drop_rxq(p);
	if (live && !p->live_files)
		port_last_close(p);
}

void port_release(struct port *p, uint64_t fh)
{
	release_file(p, fh);
	port_run_due_hooks(p);
}

void port_open_now(struct port *p, void *req, struct port_cred who)
{
	size_t files[SHARES] = { 0 }, value;
	struct port_file *f;
	int share;

	if (p->nfiles >= p->cfg.files_max) {
		refuse(p, req, ENFILE, "open files", p->cfg.files_max);
		return;
	}
	for (f = p->files; f; f = f->next)
		count_holder(files, f->uid, f->userns, &who, 1);
	share = share_passed(files, 1, p->cfg.files_max, &who, &value);
	if (share >= 0 && !passes_shares(p, &who)) {
		refuse(p, req, ENFILE, share_names[OF_FILES][share], value);
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		reply_err(p, req, ENOMEM);
		return;
	}
	f->fh = ++p->next_fh;
	f->uid = who.uid;
	f->userns = who.userns;
	f->admin = who.admin;
	f->input_key = who.input_key;
	f->input_keyed = who.input_keyed;
	/* opened with no handheld: it belongs to the next one */
	f->session = p->carrier ? p->session : p->session + 1;
	f->polled_events = ~0u; /* no round saw it yet: its first answer says */
	f->pushed = PORT_PUSHED_NONE;
	port_file_told(p, f);
	f->next = p->files;
	p->files = f;
	p->nfiles++;
	p->live_files++;
	if (p->trace)
		trace_event(p->trace, "open %llu by uid %u%s", (unsigned long long)f->fh, f->uid,
			    p->carrier ? "" : ", no handheld yet");
	if (reply_open(p, req, f->fh) < 0)
		release_file(p, f->fh); /* the opener was interrupted */
}

void port_open(struct port *p, void *req, const struct port_open_args *a)
{
	struct port_cred who = { .uid = a->uid,
				 .userns = a->userns,
				 .admin = a->admin,
				 .input_key = a->input_key,
				 .input_keyed = a->input_keyed };
	struct parked *e;

	/* TIOCEXCL: as tty_reopen(), only CAP_SYS_ADMIN may open it again */
	if (p->tty.exclusive && !a->admin) {
		reply_err(p, req, EBUSY);
	} else if (port_may_open(p, a->nonblock)) {
		port_open_now(p, req, who);
	} else {
		e = port_park(p, &p->opens, req, PARKED_ANY_FH, who, NULL, 0);
		if (e)
			e->nonblock = a->nonblock;
	}
	port_run_due_hooks(p);
}

/*
 * The shares a request on fh counts in: its opener's.  Whether its caller
 * passes them is asked of the front about req, not taken from the opener
 * (a file inherited or passed on keeps no privilege).  A file that is not
 * known has nobody's shares and no privilege.
 */
struct port_cred port_cred_of(struct port *p, uint64_t fh, void *req)
{
	struct port_file *f = port_file_find(p, fh);

	if (!f)
		return (struct port_cred){ .uid = PORT_NOBODY, .userns = PORT_USERNS_OWN };
	return (struct port_cred){ .uid = f->uid, .userns = f->userns, .req = req, .fh = fh };
}

bool port_is_hung_up(struct port *p, uint64_t fh)
{
	struct port_file *f = port_file_find(p, fh);

	return f && f->hung_up;
}
