// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "palm.h"
#include "status.h"

/* "handheld 0830:0060 (bus 1 address 3)" -> "Palm m500 (0830:0060, bus 1 address 3)" */
static size_t format_handheld(char *buf, size_t size, const char *handheld)
{
	unsigned int vid, pid;
	int n = 0;

	if (sscanf(handheld, "handheld %4x:%4x (%n", &vid, &pid, &n) == 2 && n > 0) {
		const struct palm_model *m = palm_find_model((uint16_t)vid, (uint16_t)pid);
		const char *where = handheld + n;
		size_t len = strlen(where);

		if (len && where[len - 1] == ')')
			len--;
		return (size_t)snprintf(buf, size, "%s (%04x:%04x, %.*s)",
					m ? m->name : "a handheld", vid, pid, (int)len, where);
	}
	return (size_t)snprintf(buf, size, "%s", handheld);
}

size_t status_format(char *buf, size_t size, const struct status_facts *f)
{
	size_t n = 0;

#define ADD(...)                                                                                   \
	do {                                                                                       \
		int r_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);                  \
		n += r_ > 0 ? (size_t)r_ : 0;                                                      \
	} while (0)

	if (f->handheld) {
		n += format_handheld(buf, size, f->handheld);
		ADD(" on /dev/%s", f->devname);
	} else {
		ADD("/dev/%s: no handheld", f->devname);
	}
	ADD("; %u file%s open", f->files, f->files == 1 ? "" : "s");
	if (f->last.valid) {
		time_t t = (time_t)f->last.start;
		struct tm tm;
		char when[32] = "?";

		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		ADD("; last HotSync %s, %" PRIu64 ".%" PRIu64 " s, %" PRIu64 " bytes in, %" PRIu64
		    " out",
		    when, f->last.ms / 1000, f->last.ms % 1000 / 100, f->last.rx, f->last.tx);
	} else {
		ADD("; no HotSync yet");
	}
#undef ADD
	if (size && n >= size)
		n = size - 1;
	return n;
}

bool status_update(struct status_watch *w, const struct port *p, const char *devname,
		   const char *handheld, uint64_t now_ms, int64_t (*wall_clock)(void))
{
	struct status_facts f;

	if (w->seen && w->carrier == p->carrier && w->session == p->session &&
	    w->files == p->nfiles && (!p->carrier || w->handheld == handheld))
		return false; /* nothing it shows has changed: the usual round */
	/* a departure, or a new session seen with the carrier still up (a
	 * departure and an arrival in one round: its bytes are gone) */
	if (w->seen && w->carrier && (!p->carrier || w->session != p->session)) {
		w->last = (struct status_sync){
			.valid = true,
			.start = w->start_wall,
			.ms = now_ms - w->start_ms,
			.rx = p->carrier ? 0 : p->stats.rx_bytes,
			.tx = p->carrier ? 0 : p->stats.tx_bytes,
		};
	}
	if (p->carrier && (!w->carrier || w->session != p->session)) {
		w->start_ms = now_ms;
		w->start_wall = wall_clock();
	}
	w->seen = true;
	w->carrier = p->carrier;
	w->session = p->session;
	w->files = p->nfiles;
	w->handheld = p->carrier ? handheld : NULL;
	f = (struct status_facts){
		.devname = devname, .handheld = w->handheld, .files = p->nfiles, .last = w->last
	};
	status_format(w->text, sizeof(w->text), &f);
	return true;
}
