// SPDX-License-Identifier: MIT
/*
 * palmctl: send one command to the simulated Palm from inside the guest
 * and print its answer.  Exits 0 when the answer is "ok ...".
 *
 *   palmctl stats
 *   palmctl send-pattern 1 4096
 */
#include <stdio.h>
#include <string.h>

#include "guestlib.h"

int main(int argc, char **argv)
{
	char line[400] = "";
	const char *reply;

	if (argc < 2 || strcmp(argv[1], "--help") == 0) {
		printf("usage: palmctl COMMAND [ARG]...\n"
		       "Send one control command to the simulated Palm (over /dev/ttyS1, or\n"
		       "to the control socket $PALMCTL_SOCKET of a palm-sim in the guest)\n"
		       "and print the reply; see palm-sim --help for the commands.\n");
		return argc < 2 ? 2 : 0;
	}
	guest_test_name("palmctl");
	for (int i = 1; i < argc; i++) {
		if (strlen(line) + strlen(argv[i]) + 2 > sizeof(line))
			fail("command too long");
		strcat(line, argv[i]);
		if (i + 1 < argc)
			strcat(line, " ");
	}
	reply = palm_reply("%s", line);
	puts(reply);
	return strncmp(reply, "ok", 2) == 0 ? 0 : 1;
}
