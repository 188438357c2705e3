// SPDX-License-Identifier: MIT
/*
 * The built-in applications' layouts (fixtures/hotsync/pim.c): records
 * and app info blocks packed to the bytes docs/palm-apps.md lays out
 * (written out here by hand from the layout, not from the code), read
 * back field by field, every truncation and corruption refused without a
 * read past the end (ASan), the text a desktop shows in UTF-8, and edits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pim.h"
#include "wire.h"

#define B(s) (const uint8_t *)(s), sizeof(s) - 1

/* Every shorter prefix is refused; a copy on the heap, so ASan sees overreads. */
static void truncations(enum pim_kind k, const uint8_t *p, size_t len, bool app_info)
{
	for (size_t n = 0; n < len; n++) {
		uint8_t *c = malloc(n ? n : 1);
		union pim_record r;
		struct pim_app_info ai;

		memcpy(c, p, n);
		if (app_info)
			CHECK_EQ(pim_app_info_unpack(k, c, n, &ai), -EBADMSG);
		else if (pim_record_unpack(k, c, n, &r) != -EBADMSG) {
			fprintf(stderr, "kind %d: %zu of %zu bytes taken\n", k, n, len);
			CHECK(!"a record cut short");
		}
		free(c);
	}
}

/* Pack r, compare with the bytes laid out, unpack them again. */
static void golden(enum pim_kind k, const union pim_record *r, const uint8_t *want, size_t len,
		   union pim_record *back)
{
	uint8_t buf[512];
	int n = pim_record_pack(k, r, buf, sizeof(buf));

	CHECK_EQ(n, (long long)len);
	if (n == (int)len && memcmp(buf, want, len) != 0) {
		fprintf(stderr, "kind %d packs:", k);
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %02x", buf[i]);
		fputc('\n', stderr);
		CHECK(!"the layout");
	}
	CHECK_EQ(pim_record_pack(k, r, buf, len - 1), -ENOSPC);
	CHECK_EQ(pim_record_unpack(k, want, len, back), 0);
}

static void test_address(void)
{
	/* options: show phone 2, labels 0 1 2 7 4 (phone 4 Mobile); present:
	 * last, company, phone4, note; company at string offset 3, plus one */
	static const uint8_t want[] = "\x00\x24\x72\x10"
				      "\x00\x04\x00\x45"
				      "\x04"
				      "Ab\0C\0+1\0M\xfc\0";
	union pim_record r = { 0 }, back;

	r.address.show_phone = 2;
	memcpy(r.address.phone_label, "\0\1\2\7\4", 5);
	r.address.field[PIM_LAST] = "Ab";
	r.address.field[PIM_COMPANY] = "C";
	r.address.field[PIM_PHONE4] = "+1";
	r.address.field[PIM_NOTE] = "M\xfc";
	r.address.field[PIM_CITY] = ""; /* empty: not stored */
	golden(PIM_ADDRESS, &r, want, sizeof(want) - 1, &back);
	truncations(PIM_ADDRESS, want, sizeof(want) - 1, false);
	CHECK(back.address.show_phone == 2 && back.address.phone_label[3] == 7);
	CHECK(strcmp(back.address.field[PIM_NOTE], "M\xfc") == 0 && !back.address.field[PIM_CITY]);
	/* a company offset that points elsewhere, a field bit past 19, the gap byte */
	CHECK_EQ(pim_record_unpack(PIM_ADDRESS, B("\0\0\0\0\0\0\0\5\1Ab\0C\0"), &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_ADDRESS, B("\0\0\0\0\0\x08\0\0\0x\0"), &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_ADDRESS, B("\1\0\0\0\0\0\0\1\0x\0"), &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_ADDRESS, B("\0\0\0\0\0\0\0\1\0x\0y"), &back), -EBADMSG);
}

static void test_contact(void)
{
	/* show phone 1, phone labels 0 1 2 7 4 5 6; IM labels 1 2, address
	 * labels 0 1 2; fields last, company, phone 1, note (bit 10 of the
	 * second word) with a birthday (0x1800) and a reminder (0x2000); the
	 * company 3 from the first string's start, plus one */
	static const uint8_t want[] = "\x16\x54\x72\x10"
				      "\x02\x10\x00\x21"
				      "\x00\x00\x00\x15"
				      "\x00\x00\x3c\x00"
				      "\x03"
				      "A\0C\0001\0N\0"
				      "\xc8\xa3\x00"
				      "\x02\x01";
	union pim_record r = { 0 }, back;

	r.contact = (struct pim_contact){ .show_phone = 1,
					  .phone_label = { 0, 1, 2, 7, 4, 5, 6 },
					  .address_label = { 0, 1, 2 },
					  .im_label = { 1, 2 },
					  .birthday = true,
					  .birthday_date = PIM_DATE(2004, 5, 3),
					  .reminder = true,
					  .advance_unit = 2,
					  .advance = 1 };
	r.contact.field[0] = "A";
	r.contact.field[2] = "C";
	r.contact.field[4] = "1";
	r.contact.field[38] = "N";
	golden(PIM_CONTACTS, &r, want, sizeof(want) - 1, &back);
	truncations(PIM_CONTACTS, want, sizeof(want) - 1, false);
	CHECK(back.contact.birthday && back.contact.birthday_date == PIM_DATE(2004, 5, 3) &&
	      back.contact.reminder && back.contact.advance == 1 && back.contact.im_label[1] == 2 &&
	      strcmp(back.contact.field[38], "N") == 0 && back.contact.blobs_len == 0);
	/* a field bit past 39, a blob cut short */
	CHECK_EQ(pim_record_unpack(PIM_CONTACTS, B("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x40\0\0"), &back),
		 -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_CONTACTS, B("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0Bd00\0\5ab"),
				   &back),
		 -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_CONTACTS, B("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0Bd00\0\2ab"),
				   &back),
		 0);
}

static void test_appointment(void)
{
	/* 09:00-10:00 on 2004-05-03 (0xc8a3); alarm 10 minutes; weekly every 1
	 * on Mondays, no end, weeks from Sunday; one exception 2004-05-31
	 * (0xc8bf); description, note; for Calendar a location and a blob */
	static const uint8_t want[] = "\x09\x00\x0a\x00\xc8\xa3\x7c\x00"
				      "\x0a\x00"
				      "\x02\x00\xff\xff\x01\x02\x00\x00"
				      "\x00\x01\xc8\xbf"
				      "Team\0Room 4\0";
	static const uint8_t cal[] = "\xff\xff\xff\xff\xc8\xae\x06\x00"
				     "Birthday\0Home\0"
				     "Bd00\x00\x02hi";
	static const uint8_t exception[] = { 0xc8, 0xbf };
	union pim_record r = { 0 }, back;

	r.appt = (struct pim_appointment){ .start_hour = 9,
					   .end_hour = 10,
					   .date = PIM_DATE(2004, 5, 3),
					   .alarm = true,
					   .advance = 10,
					   .repeat_type = 2,
					   .repeat_end = PIM_NO_DATE,
					   .repeat_freq = 1,
					   .repeat_on = 0x02,
					   .exceptions = 1,
					   .exception = exception,
					   .description = "Team",
					   .note = "Room 4" };
	golden(PIM_DATEBOOK, &r, want, sizeof(want) - 1, &back);
	truncations(PIM_DATEBOOK, want, sizeof(want) - 1, false);
	CHECK(back.appt.repeat_type == 2 && back.appt.repeat_on == 2 && back.appt.exceptions == 1 &&
	      get_be16(back.appt.exception) == PIM_DATE(2004, 5, 31) && !back.appt.untimed);
	CHECK(strcmp(back.appt.note, "Room 4") == 0);
	r.appt = (struct pim_appointment){ .untimed = true,
					   .date = PIM_DATE(2004, 5, 14),
					   .description = "Birthday",
					   .location = "Home",
					   .blobs = (const uint8_t *)"Bd00\0\2hi",
					   .blobs_len = 8 };
	golden(PIM_CALENDAR, &r, cal, sizeof(cal) - 1, &back);
	CHECK(back.appt.untimed && strcmp(back.appt.location, "Home") == 0 &&
	      back.appt.blobs_len == 8);
	/* without its blob the record is whole; a blob cut short is not */
	truncations(PIM_CALENDAR, cal, 22, false);
	for (size_t n = 23; n < sizeof(cal) - 1; n++)
		CHECK_EQ(pim_record_unpack(PIM_CALENDAR, cal, n, &back), -EBADMSG);
	/* the Date Book has no location and no blobs; a blob longer than what is
	 * left; more exceptions than bytes; a repeat of type 0 */
	CHECK_EQ(pim_record_unpack(PIM_DATEBOOK, cal, sizeof(cal) - 1, &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_DATEBOOK, B("\1\0\2\0\xc8\xa3\0\0x"), &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_CALENDAR, B("\1\0\2\0\xc8\xa3\0\0Bd00\0\3hi"), &back),
		 -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_DATEBOOK, B("\1\0\2\0\xc8\xa3\x08\0\xff\xff\0\0"), &back),
		 -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_DATEBOOK, B("\1\0\2\0\xc8\xa3\x20\0\0\0\xff\xff\1\0\0\0"),
				   &back),
		 -EBADMSG);
}

static void test_todo_memo(void)
{
	/* due 2004-05-20 (0xc8b4), priority 2, done; description, empty note */
	static const uint8_t want[] = "\xc8\xb4\x82Tax\0\0";
	union pim_record r = { 0 }, back;

	r.todo = (struct pim_todo){
		.due = PIM_DATE(2004, 5, 20), .priority = 2, .complete = true, .description = "Tax"
	};
	golden(PIM_TODO, &r, want, sizeof(want) - 1, &back);
	truncations(PIM_TODO, want, sizeof(want) - 1, false);
	CHECK(back.todo.complete && back.todo.priority == 2 && back.todo.note[0] == '\0');
	r.memo.text = "Shopping\nmilk";
	golden(PIM_MEMO, &r, B("Shopping\nmilk\0"), &back);
	truncations(PIM_MEMO, (const uint8_t *)"Shopping\nmilk", 14, false);
	CHECK_EQ(pim_record_unpack(PIM_MEMO, B("two\0strings\0"), &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_NONE, B("x\0"), &back), -EINVAL);
}

static void test_tasks(void)
{
	/*
	 * flags: due, completed, alarm, repeat, description, note (0xfc00);
	 * status: done (1); priority 3; due 2004-05-20 (0xc8b4); done on
	 * 2004-05-14 (0xc8ae); alarm 09:30 a day before; repeat from the due
	 * date, monthly by date (4), 0, forever, every 1, on 0, week start 0, 0
	 */
	static const uint8_t want[] = "\xfc\x00\x00\x01\x00\x03\xc8\xb4\xc8\xae"
				      "\x09\x1e\x00\x01"
				      "\xc8\xb4\x04\x00\xff\xff\x01\x00\x00\x00"
				      "Caf\xe9\0Zo\xeb";
	union pim_record r = { 0 }, back;

	r.todo = (struct pim_todo){ .due = PIM_DATE(2004, 5, 20),
				    .priority = 3,
				    .complete = true,
				    .completed = PIM_DATE(2004, 5, 14),
				    .alarm = true,
				    .alarm_hour = 9,
				    .alarm_min = 30,
				    .alarm_days = 1,
				    .repeat_type = 4,
				    .repeat_start = PIM_DATE(2004, 5, 20),
				    .repeat_end = PIM_NO_DATE,
				    .repeat_freq = 1,
				    .description = "Caf\xe9",
				    .note = "Zo\xeb" };
	golden(PIM_TASKS, &r, want, sizeof(want), &back);
	truncations(PIM_TASKS, want, sizeof(want), false);
	CHECK(back.todo.complete && back.todo.status == 1 && back.todo.priority == 3 &&
	      back.todo.completed == 0xc8ae && back.todo.alarm && back.todo.alarm_min == 30 &&
	      back.todo.alarm_days == 1 && back.todo.repeat_type == 4 &&
	      back.todo.repeat_start == 0xc8b4 && back.todo.repeat_end == PIM_NO_DATE &&
	      strcmp(back.todo.note, "Zo\xeb") == 0);
	/* no due date, no note: the description flag alone, an empty note after it */
	r.todo = (struct pim_todo){
		.due = PIM_NO_DATE, .completed = PIM_NO_DATE, .priority = 1, .description = "Pen"
	};
	golden(PIM_TASKS, &r, B("\x08\0\0\0\0\1Pen\0\0"), &back);
	CHECK(!back.todo.complete && back.todo.due == PIM_NO_DATE && !back.todo.note);
	/* ... or without it, as a reader of the flags alone would write it */
	CHECK_EQ(pim_record_unpack(PIM_TASKS, B("\x08\0\0\0\0\1Pen\0"), &back), 0);
	/* bytes after the strings, a flag no source explains, a priority's high byte, no repeat */
	CHECK_EQ(pim_record_unpack(PIM_TASKS, B("\x08\0\0\0\0\1Pen\0\0x"), &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_TASKS, B("\x09\0\0\0\0\1Pen\0\0"), &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_TASKS, B("\x08\0\0\0\1\1Pen\0\0"), &back), -EBADMSG);
	CHECK_EQ(pim_record_unpack(PIM_TASKS, B("\x18\0\0\0\0\1\xc8\xb4\0\0\xff\xff\1\0\0\0Pen\0"),
				   &back),
		 -EBADMSG);
}

static void test_app_info(void)
{
	static const char *const cats[] = { "Unfiled", "Gesch\xe4"
						       "ft" };
	struct pim_app_info ai = { 0 }, back;
	uint8_t buf[PIM_CONTACTS_APP_LEN + 8];
	static const struct {
		enum pim_kind k;
		size_t len;
	} sizes[] = { { PIM_ADDRESS, 638 }, { PIM_DATEBOOK, 280 }, { PIM_CALENDAR, 298 },
		      { PIM_TODO, 282 },    { PIM_MEMO, 282 },	   { PIM_CONTACTS, 1092 },
		      { PIM_TASKS, 300 } };

	pim_categories_set(&ai.cat, cats, 2);
	ai.cat.renamed = 0x0002;
	pim_address_labels_default(&ai);
	ai.labels_renamed = 1u << 14;
	ai.sort_by_company = 1;
	ai.start_of_week = 1;
	ai.todo_dirty = 0x1234;
	ai.sort_by_priority = 1;
	ai.sort_by_alpha = 1;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int n = pim_app_info_pack(sizes[i].k, &ai, buf, sizeof(buf));

		CHECK_EQ(n, (long long)sizes[i].len);
		/* the category block: renamed16, names at 2, ids at 258, last id at 274 */
		CHECK(get_be16(buf) == 2 &&
		      strcmp((char *)buf + 18, "Gesch\xe4"
					       "ft") == 0 &&
		      buf[259] == 1 && buf[274] == 1 && buf[275] == 0);
		CHECK_EQ(pim_app_info_unpack(sizes[i].k, buf, (size_t)n, &back), 0);
		CHECK(strcmp(back.cat.name[1], cats[1]) == 0 && back.cat.renamed == 2);
		truncations(sizes[i].k, buf, (size_t)n, true);
		CHECK_EQ(pim_app_info_pack(sizes[i].k, &ai, buf, sizes[i].len - 1), -ENOSPC);
	}
	pim_app_info_pack(PIM_ADDRESS, &ai, buf, sizeof(buf));
	/* renamed labels at 278, 22 labels of 16 from 282, country8 at 634, sort at 636 */
	CHECK(get_be32(buf + 278) == 1u << 14 && strcmp((char *)buf + 282, "Last name") == 0 &&
	      strcmp((char *)buf + 282 + 21 * 16, "Mobile") == 0 && buf[634] == 23 &&
	      buf[635] == 0 && buf[636] == 1 && buf[637] == 0);
	pim_app_info_pack(PIM_TODO, &ai, buf, sizeof(buf));
	CHECK(get_be16(buf + 278) == 0x1234 && buf[280] == 1); /* dirty16 sortByPriority8 */
	pim_app_info_pack(PIM_MEMO, &ai, buf, sizeof(buf));
	CHECK(get_be16(buf + 278) == 0 && buf[280] == 1); /* reserved16 sortOrder8 */
	/* Tasks: colours edited16 at 276, 16 colours at 278, dirty16 at 296, sort8 at 298 */
	ai.colors_edited = 0x0006;
	ai.color[2] = 5;
	pim_app_info_pack(PIM_TASKS, &ai, buf, sizeof(buf));
	CHECK(get_be16(buf + 276) == 6 && buf[280] == 5 && buf[279] == 0 &&
	      get_be16(buf + 294) == 0 && get_be16(buf + 296) == 0x1234 && buf[298] == 1 &&
	      buf[299] == 0);
	CHECK_EQ(pim_app_info_unpack(PIM_TASKS, buf, 300, &back), 0);
	CHECK(back.colors_edited == 6 && back.color[2] == 5 && back.todo_dirty == 0x1234 &&
	      back.sort_by_priority == 1);
	pim_app_info_pack(PIM_DATEBOOK, &ai, buf, sizeof(buf));
	CHECK(buf[278] == 1); /* startOfWeek8 */
	/* Contacts: 26 unknown bytes, 49 labels from 304, country8 at 1088, sort at 1090 */
	strcpy(ai.contact_labels[48], "Other");
	ai.contacts_unknown[25] = 0x5a;
	pim_app_info_pack(PIM_CONTACTS, &ai, buf, sizeof(buf));
	CHECK(buf[303] == 0x5a && strcmp((char *)buf + 304 + 48 * 16, "Other") == 0 &&
	      buf[1088] == 23 && buf[1090] == 1);
	/* names without their NUL stay inside their 16 bytes */
	memset(buf + 2, 'x', 256);
	CHECK_EQ(pim_app_info_unpack(PIM_DATEBOOK, buf, 280, &back), 0);
	CHECK_EQ(strlen(back.cat.name[15]), 15);
}

/* What a desktop shows, and its edits: CP1252 in, UTF-8 out, and back. */
static void test_text(void)
{
	struct pdb db = { .name = "ToDoDB" };
	union pim_record r = { 0 };
	struct pim_app_info ai = { 0 };
	uint8_t buf[300];
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	memcpy(db.type, "DATA", 4);
	memcpy(db.creator, "todo", 4);
	n = pim_app_info_pack(PIM_TODO, &ai, buf, sizeof(buf));
	pdb_set_block(&db.appinfo, &db.appinfo_len, buf, (size_t)n);
	r.todo = (struct pim_todo){
		.due = PIM_NO_DATE, .priority = 3, .description = "\x84Z\x93 \x80 5", .note = "a\nb"
	};
	n = pim_record_pack(PIM_TODO, &r, buf, sizeof(buf));
	pdb_append(&db,
		   &(struct pdb_entry){ .attr = 0x12, .uid = 0x10, .data = buf, .len = (size_t)n });
	pdb_append(&db, &(struct pdb_entry){ .attr = 0x80, .uid = 0x11, .data = buf, .len = 2 });
	f = open_memstream(&out, &len);
	CHECK_EQ(pim_describe(&db, f), -EBADMSG); /* the second record does not unpack */
	fclose(f);
	CHECK(strstr(out, "000010:c2:15:secret due=none priority=3 complete=0 "
			  "description=\xe2\x80\x9eZ\xe2\x80\x9c \xe2\x82\xac 5 note=a\\nb\n"));
	CHECK(strstr(out, "000011:c0:2:deleted BAD\n"));
	free(out);
	pdb_remove(&db, 1);
	/* an edit in UTF-8 is kept as CP1252 and marks the record dirty */
	CHECK_EQ(pim_edit(&db, 0, 0, "description=Caf\xc3\xa9 \xe2\x82\xac"), 0);
	CHECK(db.entries[0].attr == 0x52 &&
	      strcmp((char *)db.entries[0].data + 3, "Caf\xe9 \x80") == 0);
	CHECK_EQ(pim_edit(&db, 0, 0, "due=2004-02-30x"), -EINVAL);
	CHECK_EQ(pim_edit(&db, 0, 0, "colour=red"), -EINVAL);
	CHECK_EQ(pim_edit(&db, 0, 0,
			  "note=\xc5\x81\xc3\xb3"
			  "d\xc5\xba"),
		 -EINVAL); /* not CP1252 */
	CHECK_EQ(pim_edit(&db, 1, 0x20, "due=2004-05-01"), 0);
	CHECK(db.count == 2 && db.entries[1].uid == 0x20 && get_be16(db.entries[1].data) == 0xc8a1);
	pdb_free(&db);
}

int main(void)
{
	test_address();
	test_contact();
	test_appointment();
	test_todo_memo();
	test_tasks();
	test_app_info();
	test_text();
	return check_result("test_pim");
}
