/* SPDX-License-Identifier: MIT */
/*
 * TCP options of pilotd's connections (redir_conn.c, link_netsync.c): no
 * Nagle delay, and a silent peer noticed.  A peer that falls silent (its
 * machine lost power: no FIN, no RST) is noticed after TCP_KEEPALIVE_IDLE_S
 * + TCP_KEEPALIVE_COUNT x TCP_KEEPALIVE_INTERVAL_S = 25 s with nothing
 * unacknowledged, or TCP_USER_TIMEOUT_MS with data unacknowledged (tcp(7)).
 */
#ifndef PILOTD_TCP_OPTS_H
#define PILOTD_TCP_OPTS_H

#define TCP_KEEPALIVE_IDLE_S	 10
#define TCP_KEEPALIVE_INTERVAL_S 5
#define TCP_KEEPALIVE_COUNT	 3
#define TCP_USER_TIMEOUT_MS	 25000

/* Set them on a connected socket; a failure is logged, not fatal. */
void tcp_set_options(int fd);

#endif
