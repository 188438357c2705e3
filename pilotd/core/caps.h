/* SPDX-License-Identifier: MIT */
/*
 * Whether a caller may do what a tty lets only capable(CAP_SYS_ADMIN) do
 * (TIOCSTI into others' input, TIOCSSERIAL's closing_wait, opening past
 * TIOCEXCL; and pilotd's own shares of its bounds, core/port.h).  A CUSE
 * server learns only the caller's thread id and fsuid, so the edge reads
 * /proc/TID/status while the request is outstanding and asks this; and
 * which user namespace the caller is in, for those shares.
 */
#ifndef PILOTD_CAPS_H
#define PILOTD_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * status: the text of /proc/TID/status (len bytes, need not end in NUL).
 * True only when its "CapEff:" has CAP_SYS_ADMIN and the fsuid of its
 * "Uid:" line is fsuid (the thread the request came from, not one that
 * took its id since).  Anything malformed or missing: false.
 */
bool caps_status_admin(const char *status, size_t len, uint32_t fsuid);

/*
 * CapEff counts in the caller's own user namespace: after unshare -Ur any
 * user has every capability there, and none the kernel would honour
 * here.  /proc/TID/uid_map (readable by anyone; /proc/TID/ns/user needs
 * ptrace rights) shows the caller's map as the reader sees it: true only
 * when it is pilotd's own (/proc/self/uid_map), the namespace whose
 * capabilities count.
 */
bool caps_same_userns(const char *map, size_t len, const char *own, size_t own_len);

/*
 * Which user namespace a request counts in, for pilotd's shares of its
 * bounds (core/port.h "Bounds"): its thread's uid_map (map, len bytes)
 * against pilotd's own (own), but only when the fsuid of its status's
 * "Uid:" line is the request's fsuid.  /proc shows a thread's own
 * credentials, and a request can be made with others: an io_uring
 * personality registered in another user namespace (as a subordinate
 * kuid) runs in the submitter's thread or io-wq worker, whose uid_map is
 * the submitter's, pilotd's own.  Such a caller, whose namespace pilotd
 * cannot tell, is unseen; so is one whose status has no Uid line.
 */
enum caps_userns { CAPS_USERNS_OWN, CAPS_USERNS_OTHER, CAPS_USERNS_UNSEEN };
enum caps_userns caps_caller_userns(const char *map, size_t len, const char *own, size_t own_len,
				    const char *status, size_t status_len, uint32_t fsuid);

/*
 * The id of another user namespace, for its share of pilotd's bounds
 * (core/port.h "Bounds"): SipHash-2-4 of its uid_map text (as pilotd reads
 * it) under key, a secret of this run, so that no caller can make a map
 * whose id is another namespace's; never PORT_USERNS_OWN or _UNSEEN (0,
 * 1).  Namespaces whose maps read the same share one id.
 */
uint64_t caps_userns_id(const char *map, size_t len, const uint8_t key[16]);
/* SipHash-2-4 (Aumasson and Bernstein, 2012) of len bytes of m under key. */
uint64_t caps_siphash(const void *m, size_t len, const uint8_t key[16]);

#endif
