// SPDX-License-Identifier: MIT
/*
 * The simulated handheld's DLP server, request by request: answers whose
 * bytes are written out here from docs/dlp-layouts.md, result codes for
 * what a handheld refuses, and no crash or silence for any truncated or
 * random request.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dlp.h"
#include "dlp_calls.h"
#include "dlp_server.h"
#include "testpattern.h"
#include "wire.h"

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

/*
 * What --dlp-version and palmctl's dlp-version make: "1.2" a Palm OS 3
 * handheld that refuses the card calls, the default "1.2/1.3" a Tungsten T
 * that reports 1.2 in ReadSysInfo and answers them.
 */
static void versions(void)
{
	uint16_t version = 0, reported = 0;
	const uint8_t *v;

	CHECK_EQ(dlp_server_version_parse("1.2", &version, &reported), 0);
	CHECK(version == 0x0102 && reported == 0);
	CHECK_EQ(dlp_server_version_parse(DLP_SERVER_DEFAULT_VERSION, &version, &reported), 0);
	CHECK(version == 0x0103 && reported == 0x0102);
	CHECK_EQ(dlp_server_version_parse("1.4/1.4", &version, &reported), 0);
	CHECK(version == 0x0104 && reported == 0);
	CHECK_EQ(dlp_server_version_parse("1.3/1.2", &version, &reported), -EINVAL);
	CHECK_EQ(dlp_server_version_parse("1.2/", &version, &reported), -EINVAL);
	CHECK_EQ(dlp_server_version_parse("1.2/1.3/1.4", &version, &reported), -EINVAL);
	CHECK_EQ(dlp_server_version_parse("1.22222222/1.3", &version, &reported), -EINVAL);
	CHECK_EQ(dlp_server_version_parse("2.1", &version, &reported), -EINVAL);

	dlp_server_version_parse("1.2", &srv.version, &srv.reported);
	CHECK_EQ(call(DLP_EXP_SLOT_ENUMERATE, 0, NULL, 0), DLP_ERR_NOT_SUPPORTED);
	CHECK_EQ(call(DLP_VFS_VOLUME_ENUMERATE, 0, NULL, 0), DLP_ERR_NOT_SUPPORTED);
	dlp_server_version_parse(DLP_SERVER_DEFAULT_VERSION, &srv.version, &srv.reported);
	CHECK_EQ(call(DLP_READ_SYS_INFO, 0, "\0\1\0\4", 4), 0);
	v = arg_data(DLP_ARG_FIRST + 1, 12);
	CHECK(v[0] == 0 && v[1] == 1 && v[2] == 0 && v[3] == 2); /* DLP 1.2 */
	CHECK_EQ(get_be32(v + 8), 0xffef); /* records below 64 KiB: not a 1.4 handheld */
	CHECK_EQ(call(DLP_VFS_VOLUME_ENUMERATE, 0, NULL, 0), 0);
	CHECK(memcmp(arg_data(DLP_ARG_FIRST, 4), "\0\1\0\1", 4) == 0);
	CHECK_EQ(call(DLP_LOOP_BACK_TEST, 0, "\0\0\0\1x", 5), 0);
	CHECK_EQ(call(DLP_EXP_SLOT_MEDIA_TYPE, 0, "\0\1", 2), DLP_ERR_NOT_SUPPORTED); /* 1.4 */
	srv.reported = 0;
}

/*
 * ToDoDB, records as a handheld holds them after edits: secret in
 * category 2, dirty in 1, deleted and archived, busy in 1.
 */
static struct pdb *todo_db(void)
{
	static const struct pdb_entry records[] = {
		{ .attr = 0x12, .uid = 0x00b001, .data = (uint8_t *)"hello", .len = 6 },
		{ .attr = 0x41, .uid = 0x00b002, .data = (uint8_t *)"dirty", .len = 6 },
		{ .attr = 0x80,
		  .archived = true,
		  .uid = 0x00b003,
		  .data = (uint8_t *)"gone",
		  .len = 5 },
		{ .attr = 0x21, .uid = 0x00b004, .data = (uint8_t *)"busy", .len = 5 },
	};
	struct pdb *db = calloc(1, sizeof(*db));

	strcpy(db->name, "ToDoDB");
	memcpy(db->type, "DATA", 4);
	memcpy(db->creator, "todo", 4);
	for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++)
		pdb_append(db, &records[i]);
	return db;
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
	store_add(&store, todo_db());
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
	CHECK_EQ(store.count, 4);
	CHECK(store.count == 4 && store.dbs[3]->count == 1 &&
	      store.dbs[3]->entries[0].attr == 0x43);

	/* the store full: refused, nothing stored */
	store.capacity = store_used(&store) + 10;
	CHECK_EQ(call(DLP_WRITE_RECORD, 0, "\1\x80\0\0\0\0\0\0twelve bytes", 20), DLP_ERR_SPACE);
	CHECK(store.count == 4 && store.dbs[3]->count == 1);
	store.capacity = 1 << 20;

	/* version-gated commands and unknown ones */
	CHECK_EQ(call(DLP_READ_RECORD_EX, 1, "\1\0\0\0\0\0\0\0\0\0\xff\xff", 12),
		 DLP_ERR_NOT_SUPPORTED);
	CHECK_EQ(call(0x50, 0, "x", 1), DLP_ERR_NOT_SUPPORTED);
	versions();
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

#define B(str)	  (const uint8_t *)(str), sizeof(str) - 1
#define NO_ANSWER 0, NULL, 0

/*
 * One request as a desktop sends it (bytes as pilot-link 0.12's dlp.c
 * and palm-sync's dlp-commands.ts lay them out), the result code a
 * handheld gives in that state, and the answer's argument, byte for byte.
 */
struct step {
	const char *what;
	uint16_t version;
	uint8_t cmd, arg_id;
	const uint8_t *req;
	size_t req_len;
	int err;
	uint8_t resp_id; /* 0: no argument checked */
	const uint8_t *resp;
	size_t resp_len;
};

static const struct step steps[] = {
	/* storage: the extended argument of Palm OS 3 and later */
	{ "ReadStorageInfo 1.4", 0x0104, 0x15, 0x20, B("\0\0"), 0, 0x21,
	  B("\0\x09\0\4\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0") },
	{ "ReadStorageInfo card 1", 0x0104, 0x15, 0x20, B("\1\0"), DLP_ERR_NOT_FOUND, NO_ANSWER },
	/* the ROM's applications: listed apart, or after RAM's; read only */
	{ "ReadDBList ROM from 8", 0x0104, 0x16, 0x20, B("\x40\0\0\x08"), 0, 0x20,
	  B("\0\x08\0\1"
	    "\x36\0\0\3appllnch\0\5\0\0\0\0"
	    "\x07\xd2\x0a\x15\0\0\0\0\x07\xd2\x0a\x15\0\0\0\0\x07\x70\1\1\0\0\0\0"
	    "\0\x08Launcher\0\0") },
	{ "ReadDBList ROM from 9", 0x0104, 0x16, 0x20, B("\x40\0\0\x09"), DLP_ERR_NOT_FOUND,
	  NO_ANSWER },
	{ "ReadDBList RAM and ROM from 12: ROM's last", 0x0104, 0x16, 0x20, B("\xc0\0\0\x0c"), 0,
	  0x20,
	  B("\0\x0c\0\1"
	    "\x36\0\0\3appllnch\0\5\0\0\0\0"
	    "\x07\xd2\x0a\x15\0\0\0\0\x07\xd2\x0a\x15\0\0\0\0\x07\x70\1\1\0\0\0\0"
	    "\0\x0cLauncher\0\0") },
	{ "OpenDB Memo Pad to write", 0x0104, 0x17, 0x20, B("\0\xc0Memo Pad\0"), DLP_ERR_READ_ONLY,
	  NO_ANSWER },
	{ "DeleteDB Memo Pad", 0x0104, 0x1a, 0x20, B("\0\0Memo Pad\0"), DLP_ERR_READ_ONLY,
	  NO_ANSWER },
	{ "CreateDB Memo Pad", 0x0104, 0x18, 0x20, B("memoappl\0\0\0\1\0\1Memo Pad\0"),
	  DLP_ERR_EXISTS, NO_ANSWER },
	{ "CallApplication (OS 2+) memo, in ROM", 0x0104, 0x28, 0x21,
	  B("memoappl\x80\0\0\0\0\0\0\0\0\0\0\0\0\0"), 0, 0x21,
	  B("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0") },
	/* a record sync of ToDoDB, opened read-write (handle 1) */
	{ "OpenDB rw", 0x0104, 0x17, 0x20, B("\0\xc0ToDoDB\0"), 0, 0x20, B("\1") },
	{ "ReadRecordIDList", 0x0104, 0x31, 0x20, B("\1\0\0\0\0\x0a"), 0, 0x20,
	  B("\0\4\0\0\xb0\1\0\0\xb0\2\0\0\xb0\3\0\0\xb0\4") },
	{ "ReadRecordIDList from 3, sorted", 0x0104, 0x31, 0x20, B("\1\x80\0\3\0\x0a"), 0, 0x20,
	  B("\0\1\0\0\xb0\4") },
	{ "ReadRecordIDList past the end", 0x0104, 0x31, 0x20, B("\1\0\0\x09\0\x0a"), 0, 0x20,
	  B("\0\0") },
	{ "ReadNextModifiedRec: dirty", 0x0104, 0x1f, 0x20, B("\1"), 0, 0x20,
	  B("\0\0\xb0\2\0\1\0\6\x40\1dirty\0") },
	{ "ReadNextModifiedRec: deleted, archived", 0x0104, 0x1f, 0x20, B("\1"), 0, 0x20,
	  B("\0\0\xb0\3\0\2\0\5\x88\0gone\0") },
	{ "ReadNextModifiedRec: no more", 0x0104, 0x1f, 0x20, B("\1"), DLP_ERR_NOT_FOUND,
	  NO_ANSWER },
	{ "ResetRecordIndex", 0x0104, 0x30, 0x20, B("\1"), 0, NO_ANSWER },
	{ "ReadNextRecInCategory 1", 0x0104, 0x32, 0x20, B("\1\1"), 0, 0x20,
	  B("\0\0\xb0\2\0\1\0\6\x40\1dirty\0") },
	{ "ReadNextRecInCategory 1: busy", 0x0104, 0x32, 0x20, B("\1\1"), DLP_ERR_BUSY, NO_ANSWER },
	{ "ReadNextRecInCategory 1: no more", 0x0104, 0x32, 0x20, B("\1\1"), DLP_ERR_NOT_FOUND,
	  NO_ANSWER },
	{ "ReadNextRecInCategory 16", 0x0104, 0x32, 0x20, B("\1\x10"), DLP_ERR_PARAM, NO_ANSWER },
	{ "ResetRecordIndex", 0x0104, 0x30, 0x20, B("\1"), 0, NO_ANSWER },
	{ "ReadNextRecInCategory 2: secret, not shown", 0x0104, 0x32, 0x20, B("\1\2"),
	  DLP_ERR_NOT_FOUND, NO_ANSWER },
	{ "ResetRecordIndex", 0x0104, 0x30, 0x20, B("\1"), 0, NO_ANSWER },
	{ "ReadNextModifiedRecInCategory 1", 0x0104, 0x33, 0x20, B("\1\1"), 0, 0x20,
	  B("\0\0\xb0\2\0\1\0\6\x40\1dirty\0") },
	{ "ReadNextRecInCategory at 1.0", 0x0100, 0x32, 0x20, B("\1\1"), DLP_ERR_NOT_SUPPORTED,
	  NO_ANSWER },
	{ "MoveCategory 1 -> 3", 0x0104, 0x2c, 0x20, B("\1\1\3\0"), 0, NO_ANSWER },
	{ "ReadRecord by id: category 3", 0x0104, 0x20, 0x20, B("\1\0\0\0\xb0\2\0\0\xff\xff"), 0,
	  0x20, B("\0\0\xb0\2\0\1\0\6\x40\3dirty\0") },
	{ "ReadRecord by index: busy", 0x0104, 0x20, 0x21, B("\1\0\0\3\0\0\xff\xff"), DLP_ERR_BUSY,
	  NO_ANSWER },
	{ "ResetSyncFlags", 0x0104, 0x27, 0x20, B("\1"), 0, NO_ANSWER },
	{ "ReadRecord by id: clean", 0x0104, 0x20, 0x20, B("\1\0\0\0\xb0\2\0\0\xff\xff"), 0, 0x20,
	  B("\0\0\xb0\2\0\1\0\6\0\3dirty\0") },
	{ "ResetRecordIndex", 0x0104, 0x30, 0x20, B("\1"), 0, NO_ANSWER },
	{ "ReadNextModifiedRec: deleted stays", 0x0104, 0x1f, 0x20, B("\1"), 0, 0x20,
	  B("\0\0\xb0\3\0\2\0\5\x88\0gone\0") },
	{ "CleanUpDatabase", 0x0104, 0x26, 0x20, B("\1"), 0, NO_ANSWER },
	{ "ReadOpenDBInfo: 3 records", 0x0104, 0x2b, 0x20, B("\1"), 0, 0x20, B("\0\3") },
	{ "DeleteResource of a record database", 0x0104, 0x25, 0x20, B("\1\0tAIN\3\xe8"),
	  DLP_ERR_NOT_SUPPORTED, NO_ANSWER },
	{ "SetDBInfo: backup flag, version 5", 0x0104, 0x3a, 0x20,
	  B("\1\0\0\0\0\x08\0\5\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	    "\0\0\0\0\0\0\0\0"),
	  0, NO_ANSWER },
	/* modification number 3: MoveCategory moved two records, CleanUpDatabase
	 * purged one; the date moves only when the database is closed */
	{ "FindDB by handle: open, backup, version 5", 0x0104, 0x39, 0x21, B("\x80\1"), 0, 0x20,
	  B("\0\0\0\0\0\3\0\0\0\1"
	    "\x34\x40\x80\x08"
	    "DATAtodo\0\5\0\0\0\3"
	    "\x07\x70\1\1\0\0\0\0\x07\x70\1\1\0\0\0\0\x07\x70\1\1\0\0\0\0"
	    "\0\2ToDoDB\0\0") },
	{ "SetDBInfo: a name that exists", 0x0104, 0x3a, 0x20,
	  B("\1\0\0\0\0\0\xff\xff\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	    "\0\0\0\0\0\0\0\0MemoDB\0"),
	  DLP_ERR_EXISTS, NO_ANSWER },
	{ "SetDBInfo at 1.1", 0x0101, 0x3a, 0x20, B("\1"), DLP_ERR_NOT_SUPPORTED, NO_ANSWER },
	{ "CloseDB", 0x0104, 0x19, 0x20, B("\1"), 0, NO_ANSWER },
	{ "ReadNextModifiedRec, none open", 0x0104, 0x1f, 0x20, B("\1"), DLP_ERR_NONE_OPEN,
	  NO_ANSWER },
	/* opened read-only: nothing may change */
	{ "OpenDB ro", 0x0104, 0x17, 0x20, B("\0\x80ToDoDB\0"), 0, 0x20, B("\1") },
	{ "ResetSyncFlags, read only", 0x0104, 0x27, 0x20, B("\1"), DLP_ERR_READ_ONLY, NO_ANSWER },
	{ "CleanUpDatabase, read only", 0x0104, 0x26, 0x20, B("\1"), DLP_ERR_READ_ONLY, NO_ANSWER },
	{ "MoveCategory, read only", 0x0104, 0x2c, 0x20, B("\1\3\1\0"), DLP_ERR_READ_ONLY,
	  NO_ANSWER },
	{ "CloseDB", 0x0104, 0x19, 0x20, B("\1"), 0, NO_ANSWER },
	/* resources */
	{ "OpenDB HelloApp rw", 0x0104, 0x17, 0x20, B("\0\xc0HelloApp\0"), 0, 0x20, B("\1") },
	{ "DeleteResource: no such id", 0x0104, 0x25, 0x20, B("\1\0tAIN\3\xe9"), DLP_ERR_NOT_FOUND,
	  NO_ANSWER },
	{ "ReadRecordIDList of resources", 0x0104, 0x31, 0x20, B("\1\0\0\0\0\x0a"),
	  DLP_ERR_NOT_SUPPORTED, NO_ANSWER },
	{ "DeleteResource tAIN 1000", 0x0104, 0x25, 0x20, B("\1\0tAIN\3\xe8"), 0, NO_ANSWER },
	{ "ReadOpenDBInfo: none left", 0x0104, 0x2b, 0x20, B("\1"), 0, 0x20, B("\0\0") },
	{ "CloseDB", 0x0104, 0x19, 0x20, B("\1"), 0, NO_ANSWER },
	/* the clock */
	{ "SetSysDateTime 2003-05-17 12:00", 0x0104, 0x14, 0x20, B("\x07\xd3\5\x11\x0c\0\0\0"), 0,
	  NO_ANSWER },
	{ "SetSysDateTime month 13", 0x0104, 0x14, 0x20, B("\x07\xd3\x0d\1\0\0\0\0"), DLP_ERR_PARAM,
	  NO_ANSWER },
	/* features and preferences */
	{ "ReadFeature psys 1", 0x0104, 0x38, 0x20, B("psys\0\1"), 0, 0x20, B("\5\0\x30\0") },
	{ "ReadFeature psys 99", 0x0104, 0x38, 0x20, B("psys\0\x63"), DLP_ERR_NOT_FOUND,
	  NO_ANSWER },
	{ "ReadAppPreference: none yet", 0x0104, 0x34, 0x20, B("memo\0\1\xff\xff\0\0"),
	  DLP_ERR_NOT_FOUND, NO_ANSWER },
	{ "WriteAppPreference", 0x0104, 0x35, 0x20, B("memo\0\1\0\2\0\3\0\0abc"), 0, NO_ANSWER },
	{ "WriteAppPreference, size wrong", 0x0104, 0x35, 0x20, B("memo\0\1\0\2\0\5\0\0abc"),
	  DLP_ERR_SIZE, NO_ANSWER },
	{ "ReadAppPreference", 0x0104, 0x34, 0x20, B("memo\0\1\xff\xff\0\0"), 0, 0x20,
	  B("\0\2\0\3\0\3abc") },
	{ "ReadAppPreference, 2 bytes", 0x0104, 0x34, 0x20, B("memo\0\1\0\2\0\0"), 0, 0x20,
	  B("\0\2\0\3\0\2ab") },
	{ "ReadAppPreference, backed up", 0x0104, 0x34, 0x20, B("memo\0\1\xff\xff\x80\0"),
	  DLP_ERR_NOT_FOUND, NO_ANSWER },
	/* NetSync settings */
	{ "ReadNetSyncInfo", 0x0104, 0x36, 0x20, NULL, 0, 0, 0x20,
	  B("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x08\0\x0f\0\x0e"
	    "desktop\0"
	    "192.168.165.30\0"
	    "255.255.255.0\0") },
	{ "WriteNetSyncInfo", 0x0104, 0x37, 0x20,
	  B("\xf0\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\5\0\x09\0\0host\0"
	    "10.0.0.1\0"),
	  0, NO_ANSWER },
	{ "WriteNetSyncInfo, sizes past the end", 0x0104, 0x37, 0x20,
	  B("\xf0\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x40\0\0\0\0x\0"), DLP_ERR_SIZE, NO_ANSWER },
	{ "ReadNetSyncInfo, as written", 0x0104, 0x36, 0x20, NULL, 0, 0, 0x20,
	  B("\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\5\0\x09\0\0host\0"
	    "10.0.0.1\0") },
	{ "ReadNetSyncInfo at 1.0", 0x0100, 0x36, 0x20, NULL, 0, DLP_ERR_NOT_SUPPORTED, NO_ANSWER },
	/* loopback, applications */
	{ "LoopBackTest", 0x0104, 0x3b, 0x20, B("\0\0\0\3abc"), 0, 0x20, B("\0\0\0\3abc") },
	{ "LoopBackTest, size wrong", 0x0104, 0x3b, 0x20, B("\0\0\0\4abc"), DLP_ERR_SIZE,
	  NO_ANSWER },
	{ "LoopBackTest at 1.2", 0x0102, 0x3b, 0x20, B("\0\0\0\3abc"), DLP_ERR_NOT_SUPPORTED,
	  NO_ANSWER },
	{ "CallApplication (OS 2+) HeLo", 0x0104, 0x28, 0x21,
	  B("HeLoappl\x80\0\0\0\0\0\0\0\0\0\0\0\0\0"), 0, 0x21,
	  B("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0") },
	{ "CallApplication (OS 2+) not there", 0x0104, 0x28, 0x21,
	  B("nonEappl\x80\0\0\0\0\0\0\0\0\0\0\0\0\0"), DLP_ERR_NOT_FOUND, NO_ANSWER },
	{ "CallApplication (OS 1) HeLo", 0x0101, 0x28, 0x20, B("HeLo\0\5\0\0"), 0, 0x20,
	  B("\0\5\0\0\0\0") },
};

/* The card as pilot-link's dlp_VFS... and dlp_Exp... functions use it */
static const struct step card_steps[] = {
	{ "ExpSlotEnumerate", 0x0103, 0x3c, 0x20, NULL, 0, 0, 0x20, B("\0\1\0\1") },
	{ "ExpSlotEnumerate at 1.2", 0x0102, 0x3c, 0x20, NULL, 0, DLP_ERR_NOT_SUPPORTED,
	  NO_ANSWER },
	{ "ExpCardPresent 1", 0x0103, 0x3d, 0x20, B("\0\1"), 0, NO_ANSWER },
	{ "ExpCardPresent 2", 0x0103, 0x3d, 0x20, B("\0\2"), 0x2904, NO_ANSWER },
	{ "ExpCardInfo", 0x0103, 0x3e, 0x20, B("\0\1"), 0, 0x20,
	  B("\0\0\0\1\4\0\0\0palm-sim\0SD 16 MB\0SD card\0PSIM-0001\0") },
	{ "ExpSlotMediaType at 1.3", 0x0103, 0x5d, 0x20, B("\0\1"), DLP_ERR_NOT_SUPPORTED,
	  NO_ANSWER },
	{ "ExpSlotMediaType", 0x0104, 0x5d, 0x20, B("\0\1"), 0, 0x20, B("sdig") },
	{ "VFSVolumeEnumerate", 0x0103, 0x55, 0x20, NULL, 0, 0, 0x20, B("\0\1\0\1") },
	{ "VFSVolumeInfo", 0x0103, 0x56, 0x20, B("\0\1"), 0, 0x20,
	  B("\0\0\0\1vfatvfatlibs\0\2\0\1sdig\0\0\0\0") },
	{ "VFSVolumeInfo, volume 2", 0x0103, 0x56, 0x20, B("\0\2"), 0x2a09, NO_ANSWER },
	{ "VFSVolumeGetLabel", 0x0103, 0x57, 0x20, B("\0\1"), 0, 0x20, B("PALMSIM\0") },
	{ "VFSVolumeSetLabel", 0x0103, 0x58, 0x20, B("\0\1CARD\0"), 0, NO_ANSWER },
	{ "VFSVolumeSetLabel, too long", 0x0103, 0x58, 0x20, B("\0\1TWELVE CHARS\0"), 0x2a0e,
	  NO_ANSWER },
	{ "VFSVolumeGetLabel, set", 0x0103, 0x57, 0x20, B("\0\1"), 0, 0x20, B("CARD\0") },
	{ "VFSGetDefaultDir .prc", 0x0103, 0x40, 0x20, B("\0\1.prc\0"), 0, 0x20,
	  B("\0\x10/PALM/Launcher/\0") },
	{ "VFSGetDefaultDir .jpg", 0x0103, 0x40, 0x20, B("\0\1.jpg\0"), 0x2a08, NO_ANSWER },
	{ "VFSDirCreate", 0x0103, 0x50, 0x20, B("\0\1/PALM/Docs\0"), 0, NO_ANSWER },
	{ "VFSDirCreate again", 0x0103, 0x50, 0x20, B("\0\1/PALM/Docs\0"), 0x2a06, NO_ANSWER },
	{ "VFSDirCreate, no parent", 0x0103, 0x50, 0x20, B("\0\1/No/Such\0"), 0x2a13, NO_ANSWER },
	{ "VFSFileCreate", 0x0103, 0x43, 0x20, B("\0\1/PALM/Docs/a.txt\0"), 0, NO_ANSWER },
	{ "VFSFileOpen rw", 0x0103, 0x44, 0x20, B("\0\1\0\7/PALM/Docs/a.txt\0"), 0, 0x20,
	  B("\0\0\x10\1") },
	{ "VFSFileOpen, not there", 0x0103, 0x44, 0x20, B("\0\1\0\2/PALM/none\0"), 0x2a08,
	  NO_ANSWER },
	{ "VFSFileWrite 5", 0x0103, 0x46, 0x20, B("\0\0\x10\1\0\0\0\5"), 0, NO_ANSWER },
};

/* After VFSFileWrite's data went in */
static const struct step card_steps2[] = {
	{ "VFSFileTell", 0x0103, 0x4b, 0x20, B("\0\0\x10\1"), 0, 0x20, B("\0\0\0\5") },
	{ "VFSFileSize", 0x0103, 0x5c, 0x20, B("\0\0\x10\1"), 0, 0x20, B("\0\0\0\5") },
	{ "VFSFileEOF, at the end", 0x0103, 0x4a, 0x20, B("\0\0\x10\1"), 0x2a07, NO_ANSWER },
	{ "VFSFileSeek to 1", 0x0103, 0x5a, 0x20, B("\0\0\x10\1\0\0\0\0\0\1"), 0, NO_ANSWER },
	{ "VFSFileEOF", 0x0103, 0x4a, 0x20, B("\0\0\x10\1"), 0, NO_ANSWER },
	{ "VFSFileRead 16", 0x0103, 0x47, 0x20, B("\0\0\x10\1\0\0\0\x10"), 0, 0x20, B("\0\0\0\4") },
};

static const struct step card_steps3[] = {
	{ "VFSFileRead at the end", 0x0103, 0x47, 0x20, B("\0\0\x10\1\0\0\0\x10"), 0x2a07,
	  NO_ANSWER },
	{ "VFSFileSetAttributes", 0x0103, 0x4d, 0x20, B("\0\0\x10\1\0\0\0\x20"), 0, NO_ANSWER },
	{ "VFSFileGetAttributes", 0x0103, 0x4c, 0x20, B("\0\0\x10\1"), 0, 0x20, B("\0\0\0\x20") },
	{ "VFSFileSetDate created", 0x0103, 0x4f, 0x20, B("\0\0\x10\1\0\1\xbc\x19\x8f\x80"), 0,
	  NO_ANSWER },
	{ "VFSFileGetDate created", 0x0103, 0x4e, 0x20, B("\0\0\x10\1\0\1"), 0, 0x20,
	  B("\xbc\x19\x8f\x80") },
	{ "VFSFileResize 2", 0x0103, 0x5b, 0x20, B("\0\0\x10\1\0\0\0\2"), 0, NO_ANSWER },
	{ "VFSFileClose", 0x0103, 0x45, 0x20, B("\0\0\x10\1"), 0, NO_ANSWER },
	{ "VFSFileClose again", 0x0103, 0x45, 0x20, B("\0\0\x10\1"), 0x2a03, NO_ANSWER },
	{ "VFSVolumeSize", 0x0103, 0x59, 0x20, B("\0\1"), 0, 0x20, B("\0\0\0\2\1\0\0\0") },
	{ "VFSFileOpen the directory", 0x0103, 0x44, 0x20, B("\0\1\0\2/PALM/Docs\0"), 0, 0x20,
	  B("\0\0\x10\2") },
	{ "VFSDirEntryEnumerate", 0x0103, 0x51, 0x20, B("\0\0\x10\2\0\0\0\0\0\0\4\0"), 0, 0x20,
	  B("\xff\xff\xff\xff\0\0\0\1\0\0\0\x20"
	    "a.txt\0") },
	{ "VFSFileRename", 0x0103, 0x49, 0x20, B("\0\1\0\2/PALM/Docs/a.txt\0b.txt\0"), 0,
	  NO_ANSWER },
	{ "VFSFileDelete, open directory", 0x0103, 0x48, 0x20, B("\0\1/PALM/Docs\0"), 0x2a04,
	  NO_ANSWER },
	{ "VFSFileClose the directory", 0x0103, 0x45, 0x20, B("\0\0\x10\2"), 0, NO_ANSWER },
	{ "VFSFileDelete, not empty", 0x0103, 0x48, 0x20, B("\0\1/PALM/Docs\0"), 0x2a0d,
	  NO_ANSWER },
	{ "VFSFileDelete a.txt, renamed", 0x0103, 0x48, 0x20, B("\0\1/PALM/Docs/a.txt\0"), 0x2a08,
	  NO_ANSWER },
	{ "VFSFileDelete b.txt", 0x0103, 0x48, 0x20, B("\0\1/PALM/Docs/b.txt\0"), 0, NO_ANSWER },
	{ "VFSFileDelete the directory", 0x0103, 0x48, 0x20, B("\0\1/PALM/Docs\0"), 0, NO_ANSWER },
	/* databases to and from the card */
	{ "VFSExportDatabaseToFile MemoDB", 0x0103, 0x42, 0x20,
	  B("\0\1\0\0\0\0\0\1/PALM/Launcher/MemoDB.pdb\0"), 0, NO_ANSWER },
	{ "VFSExportDatabaseToFile again", 0x0103, 0x42, 0x20,
	  B("\0\1\0\0\0\0\0\1/PALM/Launcher/MemoDB.pdb\0"), 0x2a06, NO_ANSWER },
	{ "VFSImportDatabaseFromFile, in RAM already", 0x0103, 0x41, 0x20,
	  B("\0\1/PALM/Launcher/MemoDB.pdb\0"), 0x0219, NO_ANSWER },
	{ "DeleteDB MemoDB", 0x0103, 0x1a, 0x20, B("\0\0MemoDB\0"), 0, NO_ANSWER },
	{ "VFSImportDatabaseFromFile", 0x0103, 0x41, 0x20, B("\0\1/PALM/Launcher/MemoDB.pdb\0"), 0,
	  0x20, B("\0\0\0\0\0\4") },
	{ "VFSFileCreate junk", 0x0103, 0x43, 0x20, B("\0\1/junk.pdb\0"), 0, NO_ANSWER },
	{ "VFSImportDatabaseFromFile, not a database", 0x0103, 0x41, 0x20, B("\0\1/junk.pdb\0"),
	  0x2a0c, NO_ANSWER },
	{ "VFSCustomControl", 0x0103, 0x3f, 0x20, B("vfat\0\1"), 0x2901, NO_ANSWER },
	/* no source lays these two out: whatever the request, vfsErrUnimplemented
	 * from 1.3 on, and below 1.3 "not supported" as for any newer call */
	{ "VFSGetFile", 0x0103, 0x52, 0x20, B("\0\1/junk.pdb\0"), 0x2a10, NO_ANSWER },
	{ "VFSPutFile", 0x0103, 0x53, 0x20, B("\0\1/junk.pdb\0"), 0x2a10, NO_ANSWER },
	{ "VFSGetFile, no argument", 0x0104, 0x52, 0x20, NULL, 0, 0x2a10, NO_ANSWER },
	{ "VFSGetFile at 1.2", 0x0102, 0x52, 0x20, B("\0\1/junk.pdb\0"), DLP_ERR_NOT_SUPPORTED,
	  NO_ANSWER },
	{ "VFSPutFile at 1.2", 0x0102, 0x53, 0x20, B("\0\1/junk.pdb\0"), DLP_ERR_NOT_SUPPORTED,
	  NO_ANSWER },
	{ "VFSVolumeFormat", 0x0103, 0x54, 0x20, B("\0\2\0\x0c\0\0\0\1\0\0libs\0\2\0\1"), 0,
	  NO_ANSWER },
	{ "VFSFileDelete, formatted away", 0x0103, 0x48, 0x20, B("\0\1/junk.pdb\0"), 0x2a08,
	  NO_ANSWER },
};

static void run_steps(const struct step *steps_, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const struct step *t = &steps_[i];
		uint8_t buf[512];
		struct dlp_msg m = { .cmd = t->cmd, .argc = t->req ? 1 : 0 };
		const struct dlp_arg *a;
		int n, err;

		srv.version = t->version;
		m.args[0] = (struct dlp_arg){ .id = t->arg_id, .data = t->req, .len = t->req_len };
		n = dlp_encode(&m, buf, sizeof(buf));
		err = serve(buf, (size_t)n);
		if (err != t->err)
			fprintf(stderr, "step %zu, %s: result %d, not %d\n", i, t->what, err,
				t->err);
		CHECK_EQ(err, t->err);
		if (!t->resp_id)
			continue;
		a = dlp_find_arg(&got, t->resp_id);
		if (!a || a->len != t->resp_len || memcmp(a->data, t->resp, t->resp_len) != 0) {
			fprintf(stderr, "step %zu, %s: answer differs:", i, t->what);
			for (size_t j = 0; a && j < a->len; j++)
				fprintf(stderr, " %02x", a->data[j]);
			fputc('\n', stderr);
			CHECK(!"the answer as laid out");
		}
	}
}

static void test_calls(void)
{
	run_steps(steps, sizeof(steps) / sizeof(steps[0]));
}

/* The card: VFSFileWrite's data and VFSFileRead's are messages of their own. */
static void test_card(void)
{
	run_steps(card_steps, sizeof(card_steps) / sizeof(card_steps[0]));
	CHECK(dlp_server_wants_data(&srv));
	CHECK_EQ(dlp_serve(&srv, (const uint8_t *)"hello", 5, &resp), 0);
	CHECK(dlp_decode(resp.data, resp.len, &got) == 0 && got.cmd == DLP_VFS_FILE_WRITE &&
	      got.err == 0);
	CHECK(memcmp(arg_data(DLP_ARG_FIRST, 4), "\0\0\0\5", 4) == 0);
	CHECK(!dlp_server_wants_data(&srv));
	run_steps(card_steps2, sizeof(card_steps2) / sizeof(card_steps2[0]));
	CHECK(srv.card.read_out.len == 4 && memcmp(srv.card.read_out.data, "ello", 4) == 0);
	srv.card.read_out.len = 0; /* sent by dlp_server_answer */
	run_steps(card_steps3, sizeof(card_steps3) / sizeof(card_steps3[0]));
}

/* What the table cannot say: dates read back, arguments left out, RPC. */
static void test_calls_more(void)
{
	static const uint8_t get_token[] = {
		0x2d, 1, 0,   0,   0xa3, 0x40, 0, 0, 0, 0,
		0,    0, 0,   0,   0,	 4,    1, 2, 0, 0, /* sizeP, by reference */
		1,    4, 0,   0,   0,	 0,		   /* dataP, by reference */
		0,    4, 's', 'n', 'u',	 'm',		   /* token */
		0,    2, 0,   0,			   /* cardNo */
	};
	static const uint8_t token_answer[] = {
		0xad, 1, 0,  0, 0, 0,	 0xa3, 0x40, 0,	   0, 0, 0,   0,   0,	0,   0, 0, 4, 1,
		2,    0, 12, 1, 4, 0x10, 0xc0, 0xff, 0xf0, 0, 4, 's', 'n', 'u', 'm', 0, 2, 0, 0,
	};
	static const uint8_t mem_move[] = {
		0x2d, 1,  0,	0,    0xa0, 0x26, 0, 0,	 0, 0, 0, 0, 0, 0,
		0,    3,  0,	4,    0,    0,	  0, 12,		   /* numBytes */
		0,    4,  0x10, 0xc0, 0xff, 0xf0,			   /* src */
		1,    12, 0,	0,    0,    0,	  0, 0,	 0, 0, 0, 0, 0, 0, /* dst, by reference */
	};
	static const uint8_t other_trap[16] = { 0x2d, 1, 0, 0, 0xa0, 0xa0 };
	const uint8_t *d;

	srv.version = 0x0104;
	CHECK_EQ(call(DLP_GET_SYS_DATE_TIME, 0, NULL, 0), 0);
	d = arg_data(DLP_ARG_FIRST, 8);
	CHECK(d[0] == 0x07 && d[1] == 0xd3 && d[2] == 5 && d[3] == 17 && d[4] == 12);
	srv.version = 0x0101; /* Palm OS 2 sends no database counts */
	CHECK_EQ(call(DLP_READ_STORAGE_INFO, 0, "\0\0", 2), 0);
	CHECK(dlp_find_arg(&got, DLP_ARG_FIRST + 1) == NULL);
	/* ProcessRPC, no argument wrappers: pilot-link's dlp_GetROMToken, the
	 * serial number's address and size, then MemMove from there */
	CHECK_EQ(serve(get_token, sizeof(get_token)), 0);
	CHECK(resp.len == sizeof(get_token) + 2 && memcmp(resp.data, token_answer, resp.len) == 0);
	CHECK_EQ(serve(mem_move, sizeof(mem_move)), 0);
	CHECK(resp.len == sizeof(mem_move) + 2 && memcmp(resp.data + 32, "PSIM00000001", 12) == 0);
	CHECK_EQ(serve(other_trap, sizeof(other_trap)), DLP_ERR_NOT_SUPPORTED);
	CHECK_EQ(serve(get_token, 6), DLP_ERR_ARGUMENT);
	CHECK(srv.calls[DLP_PROCESS_RPC] == 4);
}

/* FindDB by name: the database's modification number and date (Unix time). */
static void db_numbers(const char *name, uint32_t *modnum, time_t *mtime)
{
	uint8_t req[40] = { 0x80, 0 };
	struct dlp_dbinfo d;
	size_t used;
	const uint8_t *p;

	memcpy(req + 2, name, strlen(name) + 1);
	CHECK_EQ(call(DLP_FIND_DB, 0, req, 2 + strlen(name) + 1), 0);
	p = dlp_find_arg(&got, DLP_ARG_FIRST) ? dlp_find_arg(&got, DLP_ARG_FIRST)->data : NULL;
	CHECK(p &&
	      dlp_dbinfo_get(p + 10, dlp_find_arg(&got, DLP_ARG_FIRST)->len - 10, &d, &used) == 0);
	*modnum = p ? d.modnum : 0;
	*mtime = p ? d.mtime : 0;
}

/*
 * The handheld's bookkeeping as Palm OS keeps it: the modification number
 * goes up by one for every record written, changed or deleted (and every
 * record purged or moved), by a desktop or by the user; the date moves
 * when a changed database is closed, and not for one only read; the last
 * sync date the desktop wrote is the successful one after a normal end.
 */
static void test_bookkeeping(void)
{
	static const uint8_t open_rw[] = "\0\xc0ToDoDB", open_ro[] = "\0\x80ToDoDB";
	uint8_t write[] = { 1, 0x80, 0, 0, 0, 0, 0, 1, 'n', 'e', 'w', 0 };
	uint8_t del[6] = { 1, 0 }, user[22] = { 0 };
	struct pdb *db = store_find(&store, "ToDoDB", NULL);
	uint32_t modnum, before;
	time_t mtime;
	const uint8_t *u;

	srv.version = 0x0104;
	dlp_server_new_sync(&srv);
	db->mtime = pdb_time_from_unix(1000000000); /* 2001-09-09 */
	db_numbers("ToDoDB", &before, &mtime);
	CHECK_EQ(mtime, 1000000000);
	CHECK_EQ(call(DLP_OPEN_DB, 0, open_ro, sizeof(open_ro)), 0);
	CHECK_EQ(call(DLP_CLOSE_DB, 0, "\1", 1), 0);
	db_numbers("ToDoDB", &modnum, &mtime);
	CHECK(modnum == before && mtime == 1000000000); /* only read: nothing moves */

	CHECK_EQ(call(DLP_OPEN_DB, 0, open_rw, sizeof(open_rw)), 0);
	CHECK_EQ(call(DLP_WRITE_RECORD, 0, write, sizeof(write)), 0); /* a new record */
	put_be32(write + 2, get_be32(arg_data(DLP_ARG_FIRST, 4)));
	put_be32(del + 2, get_be32(write + 2));
	CHECK_EQ(call(DLP_WRITE_RECORD, 0, write, sizeof(write)), 0); /* changed */
	db_numbers("ToDoDB", &modnum, &mtime);
	CHECK_EQ(modnum, before + 2);
	CHECK_EQ(mtime, 1000000000); /* still open */
	CHECK_EQ(call(DLP_DELETE_RECORD, 0, del, sizeof(del)), 0);
	CHECK_EQ(call(DLP_DELETE_RECORD, 0, del, sizeof(del)), DLP_ERR_NOT_FOUND);
	CHECK_EQ(call(DLP_CLOSE_DB, 0, "\1", 1), 0);
	db_numbers("ToDoDB", &modnum, &mtime);
	CHECK_EQ(modnum, before + 3);
	CHECK(mtime >= dlp_server_clock(&srv) - 5 && mtime <= dlp_server_clock(&srv));

	/* the user at the handheld: the date moves at once (the database is closed) */
	db->mtime = pdb_time_from_unix(1000000000);
	dlp_server_touch(&srv, db, 1);
	db_numbers("ToDoDB", &modnum, &mtime);
	CHECK(modnum == before + 4 && mtime > 1000000000);

	/* the desktop's last sync PC and date; a normal end makes it successful */
	put_be32(user + 8, 0x50494c4f);
	dlp_date_encode(1100000000, user + 12);
	user[20] = 0x40 | 0x20;
	CHECK_EQ(call(DLP_WRITE_USER_INFO, 0, user, sizeof(user)), 0);
	CHECK_EQ(call(DLP_END_OF_SYNC, 0, "\0\0", 2), 0);
	CHECK_EQ(call(DLP_READ_USER_INFO, 0, NULL, 0), 0);
	u = arg_data(DLP_ARG_FIRST, 30 + strlen(srv.user.name) + 1);
	CHECK(get_be32(u + 8) == 0x50494c4f && dlp_date_decode(u + 12) == 1100000000 &&
	      dlp_date_decode(u + 20) == 1100000000);
	/* a sync that ends in error: the last sync moves, the successful one stays */
	dlp_server_new_sync(&srv);
	CHECK_EQ(call(DLP_END_OF_SYNC, 0, "\0\1", 2), 0);
	CHECK(srv.user.successful_sync == 1100000000 &&
	      srv.user.last_sync >= dlp_server_clock(&srv) - 5); /* the handheld's clock */
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
	test_calls();
	test_calls_more();
	test_card();
	test_bookkeeping();
	test_malformed();
	dlp_server_free(&srv);
	store_free(&store);
	hs_buf_free(&resp);
	return check_result("test_dlp_server");
}
