// SPDX-License-Identifier: MIT
/* TCP options of pilotd's connections; see tcp_opts.h. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

#include "core/log.h"
#include "tcp_opts.h"

void tcp_set_options(int fd)
{
	static const struct {
		int level, name, value;
	} opts[] = {
		{ IPPROTO_TCP, TCP_NODELAY, 1 },
		{ SOL_SOCKET, SO_KEEPALIVE, 1 },
		{ IPPROTO_TCP, TCP_KEEPIDLE, TCP_KEEPALIVE_IDLE_S },
		{ IPPROTO_TCP, TCP_KEEPINTVL, TCP_KEEPALIVE_INTERVAL_S },
		{ IPPROTO_TCP, TCP_KEEPCNT, TCP_KEEPALIVE_COUNT },
		{ IPPROTO_TCP, TCP_USER_TIMEOUT, TCP_USER_TIMEOUT_MS },
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (setsockopt(fd, opts[i].level, opts[i].name, &opts[i].value,
			       sizeof(opts[i].value)) < 0)
			log_warn("setsockopt %d/%d: %s", opts[i].level, opts[i].name,
				 strerror(errno));
}
