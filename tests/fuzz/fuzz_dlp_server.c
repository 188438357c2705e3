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
 * the rest.  The store holds the built-in applications' databases with
 * their layouts (fixtures/hotsync/pim.h); after the sync every app info
 * block and record of them, as the requests left them, is unpacked as a
 * desktop reads it, and each database's modification number may only
 * have gone up.
 *
 *   tests/fuzz/run-long dlp_server 600
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlp.h"
#include "dlp_server.h"
#include "pim.h"

#define MARK 0x50494d00u

/* AddressDB, DatebookDB, ToDoDB, ContactsDB-PAdd, TasksDB-PTod: an app info, two records each */
static void add_pim(struct store *st, const char *name, const char *creator, enum pim_kind k)
{
	static const char *const cats[] = { "Unfiled", "Business" };
	uint8_t buf[PIM_CONTACTS_APP_LEN];
	struct pim_app_info ai = { 0 };
	union pim_record r[2];
	struct pdb *db = calloc(1, sizeof(*db));
	int n;

	if (!db)
		abort();
	memset(r, 0, sizeof(r));
	strcpy(db->name, name);
	memcpy(db->type, "DATA", 4);
	memcpy(db->creator, creator, 4);
	db->modnum = 5;
	db->next_list = MARK + (uint32_t)st->count; /* no call changes it: tells the db */
	pim_categories_set(&ai.cat, cats, 2);
	pim_address_labels_default(&ai);
	n = pim_app_info_pack(k, &ai, buf, sizeof(buf));
	pdb_set_block(&db->appinfo, &db->appinfo_len, buf, (size_t)n);
	if (k == PIM_ADDRESS) {
		r[0].address.field[PIM_LAST] = "M\xfcller";
		r[1].address.field[PIM_COMPANY] = "Bell Labs";
	} else if (k == PIM_CONTACTS) {
		r[0].contact = (struct pim_contact){ .birthday = true, .reminder = true };
		r[0].contact.field[2] = "Gro\xdf";
		r[1].contact.field[38] = "note";
	} else if (k == PIM_DATEBOOK) {
		r[0].appt = (struct pim_appointment){ .untimed = true,
						      .date = PIM_DATE(2004, 5, 3),
						      .alarm = true,
						      .repeat_type = 2,
						      .repeat_on = 2,
						      .repeat_end = PIM_NO_DATE,
						      .description = "Team" };
		r[1].appt = (struct pim_appointment){ .date = PIM_DATE(2004, 5, 4), .note = "n" };
	} else {
		r[0].todo = (struct pim_todo){ .due = PIM_NO_DATE,
					       .completed = PIM_NO_DATE,
					       .priority = 1,
					       .description = "a" };
		r[1].todo = (struct pim_todo){ .due = PIM_DATE(2004, 5, 3),
					       .complete = true,
					       .completed = PIM_DATE(2004, 5, 2),
					       .alarm = k == PIM_TASKS,
					       .repeat_type = k == PIM_TASKS ? 1 : 0,
					       .repeat_start = PIM_DATE(2004, 5, 3),
					       .repeat_end = PIM_NO_DATE };
	}
	for (int i = 0; i < 2; i++) {
		struct pdb_entry e = { .attr = (uint8_t)(i ? 0x51 : 0x00),
				       .uid = 0x2000u + (uint32_t)i };

		n = pim_record_pack(k, &r[i], buf, sizeof(buf));
		e.data = buf;
		e.len = (size_t)n;
		pdb_append(db, &e);
	}
	if (store_add(st, db) < 0)
		abort();
}

/*
 * What a desktop reads of the built-in applications' databases afterwards:
 * every app info block and record through the unpackers (pim_describe
 * prints only what they passed; printing it all would cost most of the
 * run), and the modification numbers.
 */
static void read_back(const struct store *st, const uint32_t *modnum)
{
	for (size_t i = 0; i < st->count; i++) {
		const struct pdb *db = st->dbs[i];
		uint32_t mark = db->next_list - MARK;
		enum pim_kind k = pim_kind_of(db);
		struct pim_app_info ai;
		union pim_record r;

		if (mark < 5 && db->modnum < modnum[mark])
			abort(); /* the modification number went down */
		if (k == PIM_NONE)
			continue;
		pim_app_info_unpack(k, db->appinfo, db->appinfo_len, &ai);
		for (size_t e = 0; e < db->count; e++)
			pim_record_unpack(k, db->entries[e].data, db->entries[e].len, &r);
	}
}

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
	uint32_t modnum[5];
	size_t pos = 1;

	if (size < 1)
		return 0;
	add_pim(&st, "AddressDB", "addr", PIM_ADDRESS);
	add_pim(&st, "DatebookDB", "date", PIM_DATEBOOK);
	add_pim(&st, "ToDoDB", "todo", PIM_TODO);
	add_pim(&st, "ContactsDB-PAdd", "PAdd", PIM_CONTACTS);
	add_pim(&st, "TasksDB-PTod", "PTod", PIM_TASKS);
	for (int i = 0; i < 5; i++)
		modnum[i] = st.dbs[i]->modnum;
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
	read_back(&st, modnum);
	dlp_server_free(&srv);
	store_free(&st);
	hs_buf_free(&resp);
	return 0;
}
