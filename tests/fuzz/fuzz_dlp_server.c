// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the simulated handheld's DLP server (fixtures/palm-sim)
 * fed a whole sync of malformed requests.  An input is a DLP version byte
 * (1.1 to 1.4) and then requests, each `len16 bytes` (big-endian), served
 * in order against one store and one card, so that open handles, record
 * indexes, open files and edits carry from one request to the next as in
 * a real sync.  Every request must get exactly one answer that decodes as
 * a response to the same command (VFSFileWrite's data, the message after
 * the call, an answer to VFSFileWrite); AddressSanitizer and UBSan catch
 * the rest.
 *
 *   tests/fuzz/run-long dlp_server 600
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlp.h"
#include "dlp_server.h"

static void add_db(struct store *st, const char *name, const char *type, const char *creator,
		   bool resources, int entries)
{
	struct pdb *db = calloc(1, sizeof(*db));
	static const uint8_t attrs[] = { 0x00, 0x41, 0x80, 0x21, 0x12, 0xc3 };

	if (!db)
		abort();
	strcpy(db->name, name);
	memcpy(db->type, type, 4);
	memcpy(db->creator, creator, 4);
	db->attr = resources ? PDB_ATTR_RESOURCE : 0;
	pdb_set_block(&db->appinfo, &db->appinfo_len, (const uint8_t *)"appinfo", 7);
	for (int i = 0; i < entries; i++) {
		struct pdb_entry e = {
			.attr = attrs[i % sizeof(attrs)],
			.archived = i == 2,
			.uid = 0x1000u + (uint32_t)i,
			.id = (uint16_t)(1000 + i),
			.data = (uint8_t *)"record data",
			.len = (size_t)(i * 3) % 12,
		};

		memcpy(e.type, "tAIN", 4);
		pdb_append(db, &e);
	}
	if (store_add(st, db) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store st = { .capacity = 1 << 16 };
	struct dlp_server srv;
	struct hs_buf resp = { 0 };
	size_t pos = 1;

	if (size < 1)
		return 0;
	add_db(&st, "MemoDB", "DATA", "memo", false, 6);
	add_db(&st, "HelloApp", "appl", "HeLo", true, 3);
	add_db(&st, "EmptyDB", "DATA", "empt", false, 0);
	dlp_server_init(&srv, &st, (uint16_t)(0x0101 + data[0] % 4));
	while (pos + 2 <= size) {
		size_t len = (size_t)data[pos] << 8 | data[pos + 1];
		bool file_data = dlp_server_wants_data(&srv);
		struct dlp_msg m;

		pos += 2;
		if (len > size - pos)
			len = size - pos;
		if (dlp_serve(&srv, data + pos, len, &resp) < 0)
			abort(); /* only memory may run out, and it does not here */
		if (dlp_decode(resp.data, resp.len, &m) < 0 || !m.response ||
		    m.cmd != (file_data ? DLP_VFS_FILE_WRITE
			      : len	? data[pos] & 0x7f
					: 0))
			abort();	   /* an answer that is not one */
		srv.card.read_out.len = 0; /* VFSFileRead's bytes: sent, as the link would */
		pos += len;
	}
	dlp_server_free(&srv);
	store_free(&st);
	hs_buf_free(&resp);
	return 0;
}
