// SPDX-License-Identifier: MIT
/*
 * The simulated handheld's DLP server, request by request: answers whose
 * bytes are written out here from docs/dlp-layouts.md, result codes for
 * what a handheld refuses, and no crash or silence for any truncated or
 * random request.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dlp.h"
#include "dlp_server.h"
#include "testpattern.h"

static struct store store;
static struct dlp_server srv;
static struct hs_buf resp;
static struct dlp_msg got;

/* Send raw request bytes; returns the result code, the answer in got. */
static int serve(const uint8_t *req, size_t len)
{
	CHECK_EQ(dlp_serve(&srv, req, len, &resp), 0);
	if (dlp_decode(resp.data, resp.len, &got) < 0 || !got.response) {
		CHECK(!"an answer that does not decode");
		return -1;
	}
	CHECK_EQ(got.cmd, len ? req[0] & 0x7f : 0);
	return got.err;
}

/* A request with one argument of id 0x20 + which. */
static int call(uint8_t cmd, uint8_t which, const void *arg, size_t len)
{
	uint8_t buf[4096];
	struct dlp_msg m = { .cmd = cmd, .argc = arg ? 1 : 0 };
	int n;

	m.args[0] = (struct dlp_arg){ .id = DLP_ARG_FIRST + which, .data = arg, .len = len };
	n = dlp_encode(&m, buf, sizeof(buf));
	CHECK(n > 0);
	return serve(buf, (size_t)n);
}

static const uint8_t *arg_data(uint8_t id, size_t len)
{
	const struct dlp_arg *a = dlp_find_arg(&got, id);

	CHECK(a != NULL);
	if (a)
		CHECK_EQ(a->len, len);
	return a && a->len == len ? a->data : (const uint8_t *)"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
}

static void setup(void)
{
	struct pdb *memo = calloc(1, sizeof(*memo)), *app = calloc(1, sizeof(*app));
	struct pdb_entry e = {
		.attr = 0x12, .uid = 0x00a001, .data = (uint8_t *)"hello", .len = 6
	};

	strcpy(memo->name, "MemoDB");
	memcpy(memo->type, "DATA", 4);
	memcpy(memo->creator, "memo", 4);
	pdb_set_block(&memo->appinfo, &memo->appinfo_len, (const uint8_t *)"APPINFO", 7);
	pdb_append(memo, &e);
	strcpy(app->name, "HelloApp");
	app->attr = PDB_ATTR_RESOURCE;
	memcpy(app->type, "appl", 4);
	memcpy(app->creator, "HeLo", 4);
	e = (struct pdb_entry){ .id = 1000, .data = (uint8_t *)"Hello", .len = 6 };
	memcpy(e.type, "tAIN", 4);
	pdb_append(app, &e);
	store = (struct store){ .capacity = 1 << 20 };
	store_add(&store, memo);
	store_add(&store, app);
	dlp_server_init(&srv, &store, 0x0102);
}

static void test_answers(void)
{
	static const uint8_t open_memo[] = { 0, 0x80, 'M', 'e', 'm', 'o', 'D', 'B', 0 };
	static const uint8_t sysinfo_12[12] = { 0, 1, 0, 2, 0, 1, 0, 0, 0, 0, 0xff, 0xef };
	static const uint8_t record0_head[10] = { 0, 0, 0xa0, 0x01, 0, 0, 0, 6, 0x10, 0x02 };
	static const uint8_t res0_head[10] = { 't', 'A', 'I', 'N', 0x03, 0xe8, 0, 0, 0, 6 };
	uint8_t req[32];

	/* ReadSysInfo: DLP 1.2, compat 1.0, max record 0xffef */
	CHECK_EQ(call(DLP_READ_SYS_INFO, 0, "\0\1\0\4", 4), 0);
	CHECK(memcmp(arg_data(DLP_ARG_FIRST + 1, 12), sysinfo_12, 12) == 0);
	/* OpenDB -> handle 1; ReadAppBlock from 2, 3 bytes */
	CHECK_EQ(call(DLP_OPEN_DB, 0, open_memo, sizeof(open_memo)), 0);
	CHECK_EQ(arg_data(DLP_ARG_FIRST, 1)[0], 1);
	CHECK_EQ(call(DLP_READ_APP_BLOCK, 0, "\1\0\0\2\0\3", 6), 0);
	CHECK(memcmp(arg_data(DLP_ARG_FIRST, 5), "\0\3PIN", 5) == 0);
	/* no sort block: not found */
	CHECK_EQ(call(DLP_READ_SORT_BLOCK, 0, "\1\0\0\0\xff\xff", 6), DLP_ERR_NOT_FOUND);
	/* ReadRecord by index (arg 0x21) and by id (arg 0x20) */
	CHECK_EQ(call(DLP_READ_RECORD, 1, "\1\0\0\0\0\0\xff\xff", 8), 0);
	CHECK(memcmp(arg_data(DLP_ARG_FIRST, 16), record0_head, 10) == 0);
	CHECK_EQ(call(DLP_READ_RECORD, 0, "\1\0\0\0\xa0\x01\0\0\xff\xff", 10), 0);
	CHECK(memcmp(arg_data(DLP_ARG_FIRST, 16) + 10, "hello", 6) == 0);
	CHECK_EQ(call(DLP_READ_RECORD, 1, "\1\0\0\1\0\0\xff\xff", 8), DLP_ERR_NOT_FOUND);
	CHECK_EQ(call(DLP_READ_OPEN_DB_INFO, 0, "\1", 1), 0);
	CHECK_EQ(arg_data(DLP_ARG_FIRST, 2)[1], 1);
	/* opened read-only: no writing */
	CHECK_EQ(call(DLP_WRITE_RECORD, 0, "\1\x80\0\0\0\0\0\0xy", 10), DLP_ERR_READ_ONLY);
	/* an open database cannot be deleted */
	CHECK_EQ(call(DLP_DELETE_DB, 0, open_memo, sizeof(open_memo)), DLP_ERR_OPEN);
	CHECK_EQ(call(DLP_CLOSE_DB, 0, "\1", 1), 0);
	CHECK_EQ(call(DLP_CLOSE_DB, 0, "\1", 1), DLP_ERR_NONE_OPEN);

	/* resources: by index (0x20) and by type and id (0x21) */
	memcpy(req, "\0\x80HelloApp", 11);
	CHECK_EQ(call(DLP_OPEN_DB, 0, req, 11), 0);
	CHECK_EQ(call(DLP_READ_RESOURCE, 0, "\1\0\0\0\0\0\xff\xff", 8), 0);
	CHECK(memcmp(arg_data(DLP_ARG_FIRST, 16), res0_head, 10) == 0);
	CHECK_EQ(call(DLP_READ_RESOURCE, 1, "\1\0tAIN\x03\xe8\0\0\xff\xff", 12), 0);
	CHECK_EQ(call(DLP_READ_RECORD, 1, "\1\0\0\0\0\0\xff\xff", 8), DLP_ERR_NOT_SUPPORTED);
	CHECK_EQ(call(DLP_CLOSE_DB, 1, NULL, 0), DLP_ERR_ARGUMENT); /* 0x21 needs no data... */
	CHECK_EQ(call(DLP_CLOSE_DB, 1, "", 0), 0);		    /* ...but must be there */

	/* CreateDB: a name that exists; a new one, then a record in it */
	memcpy(req, "memoDATA\0\0\0\0\0\0MemoDB", 21);
	CHECK_EQ(call(DLP_CREATE_DB, 0, req, 21), DLP_ERR_EXISTS);
	memcpy(req, "NtGoDATA\0\0\0\0\0\0Notes", 20);
	CHECK_EQ(call(DLP_CREATE_DB, 0, req, 20), 0);
	CHECK_EQ(call(DLP_WRITE_RECORD, 0, "\1\x80\0\0\0\0\x40\3note", 13), 0);
	CHECK_EQ(store.count, 3);
	CHECK(store.count == 3 && store.dbs[2]->count == 1 &&
	      store.dbs[2]->entries[0].attr == 0x43);

	/* the store full: refused, nothing stored */
	store.capacity = store_used(&store) + 10;
	CHECK_EQ(call(DLP_WRITE_RECORD, 0, "\1\x80\0\0\0\0\0\0twelve bytes", 20), DLP_ERR_SPACE);
	CHECK(store.count == 3 && store.dbs[2]->count == 1);
	store.capacity = 1 << 20;

	/* version-gated commands and unknown ones */
	CHECK_EQ(call(DLP_READ_RECORD_EX, 1, "\1\0\0\0\0\0\0\0\0\0\xff\xff", 12),
		 DLP_ERR_NOT_SUPPORTED);
	CHECK_EQ(call(0x50, 0, "x", 1), DLP_ERR_NOT_SUPPORTED);
	srv.version = 0x0101;
	CHECK_EQ(call(DLP_FIND_DB, 0, "\x80\0MemoDB", 9), DLP_ERR_NOT_SUPPORTED);
	CHECK_EQ(call(DLP_READ_SYS_INFO, 0, NULL, 0), 0);
	CHECK(dlp_find_arg(&got, DLP_ARG_FIRST + 1) == NULL); /* 1.1 knows no arg 1 */
	srv.version = 0x0104;
	CHECK_EQ(call(DLP_FIND_DB, 0, "\xc0\0MemoDB", 9), 0);
	CHECK_EQ(arg_data(DLP_ARG_FIRST + 1, 24)[3], 1); /* one record */
	CHECK_EQ(call(DLP_END_OF_SYNC, 0, "\0\0", 2), 0);
	CHECK(srv.end_of_sync);
}

/* Every request cut short, and random ones: always one answer, never a crash. */
static void test_malformed(void)
{
	static const uint8_t cmds[] = {
		0x10, 0x11, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x20,
		0x21, 0x22, 0x23, 0x24, 0x29, 0x2a, 0x2b, 0x2e, 0x2f, 0x39, 0x5e, 0x5f, 0x60, 0x64,
	};
	struct testpattern tp;
	uint8_t buf[64];

	srv.version = 0x0104;
	testpattern_init(&tp, 4);
	for (size_t c = 0; c < sizeof(cmds); c++) {
		/* a full-looking request with one argument, then every truncation */
		uint8_t req[24] = { cmds[c], 1, DLP_ARG_FIRST, 20, 1, 0x80 };

		for (size_t len = 0; len <= sizeof(req); len++) {
			int err = serve(req, len);

			if (len < sizeof(req))
				CHECK(err != 0 || cmds[c] == DLP_OPEN_CONDUIT ||
				      cmds[c] == DLP_RESET_SYSTEM ||
				      cmds[c] == DLP_READ_USER_INFO || cmds[c] == DLP_END_OF_SYNC ||
				      cmds[c] == DLP_READ_SYS_INFO);
		}
	}
	for (int i = 0; i < 20000; i++) {
		size_t len = testpattern_next(&tp) % sizeof(buf);

		testpattern_fill(&tp, buf, len);
		if (len)
			buf[0] = cmds[buf[0] % sizeof(cmds)];
		if (len > 1)
			buf[1] %= 3;
		serve(buf, len);
	}
	CHECK(srv.requests > 20000);
}

int main(void)
{
	setup();
	test_answers();
	test_malformed();
	dlp_server_free(&srv);
	store_free(&store);
	hs_buf_free(&resp);
	return check_result("test_dlp_server");
}
