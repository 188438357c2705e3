// SPDX-License-Identifier: MIT
/* Parked-request bookkeeping: order, ownership, lookup, interrupts. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "core/parked.h"

static int reqs[8]; /* stand-ins for fuse_req_t */

static void test_fifo_and_take(void)
{
	struct parked_list l = { 0 };
	struct parked *p;

	for (int i = 0; i < 4; i++)
		CHECK(parked_add(&l, &reqs[i], (uint64_t)(i % 2), NULL, 10u + (size_t)i));
	CHECK_EQ(l.count, 4);
	CHECK(l.head->req == &reqs[0] && l.tail->req == &reqs[3]);

	/* take from the middle keeps the links whole */
	p = parked_take(&l, parked_find(&l, &reqs[2]));
	CHECK(p->req == &reqs[2] && p->next == NULL && p->prev == NULL);
	parked_free(p);
	CHECK_EQ(l.count, 3);
	CHECK(l.head->next->req == &reqs[1] && l.head->next->next->req == &reqs[3]);
	CHECK(l.tail->prev->req == &reqs[1]);

	/* first_of finds by open file, in arrival order */
	CHECK(parked_first_of(&l, 1)->req == &reqs[1]);
	CHECK(parked_first_of(&l, 0)->req == &reqs[0]);
	CHECK(parked_first_of(&l, 7) == NULL);
	CHECK(parked_first_of(&l, PARKED_ANY_FH)->req == &reqs[0]);

	while ((p = parked_first_of(&l, PARKED_ANY_FH)))
		parked_free(parked_take(&l, p));
	CHECK_EQ(l.count, 0);
	CHECK(l.head == NULL && l.tail == NULL);
	CHECK(parked_find(&l, &reqs[0]) == NULL);
}

/* A write's payload is copied: the caller's buffer may go away. */
static void test_payload_copied(void)
{
	struct parked_list l = { 0 };
	char buf[16] = "hotsync";
	struct parked *p = parked_add(&l, &reqs[0], 1, buf, sizeof(buf));

	memset(buf, 0, sizeof(buf));
	CHECK(p && memcmp(p->data, "hotsync", 8) == 0);
	CHECK_EQ(p->size, sizeof(buf));
	parked_free(parked_take(&l, p));
}

static void test_interrupted(void)
{
	struct parked_list l = { 0 };
	struct parked *p;

	for (int i = 0; i < 3; i++)
		parked_add(&l, &reqs[i], 1, NULL, 1);
	CHECK(parked_first_interrupted(&l) == NULL);
	parked_find(&l, &reqs[1])->interrupted = true;
	p = parked_first_interrupted(&l);
	CHECK(p && p->req == &reqs[1]);
	parked_free(parked_take(&l, p));
	CHECK(parked_first_interrupted(&l) == NULL);
	CHECK_EQ(l.count, 2);
	while ((p = l.head))
		parked_free(parked_take(&l, p));
}

int main(void)
{
	test_fifo_and_take();
	test_payload_copied();
	test_interrupted();
	return check_result("test_parked");
}
