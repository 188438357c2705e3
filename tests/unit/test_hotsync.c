// SPDX-License-Identifier: MIT
/*
 * The HotSync codec against byte sequences written out from
 * palm-protocol.md section 4: frames, checksums, CRC-16, PADP
 * fragmentation above 1024 bytes, CMP, the NET handshake and header, DLP
 * argument encodings, and PDB/PRC files.  Malformed input is an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dlp.h"
#include "dlp_calls.h"
#include "net.h"
#include "padp.h"
#include "pdb.h"
#include "slp.h"

/* The CMP wakeup frame seen in the wild (palm-protocol.md section 4). */
static const uint8_t wakeup_frame[] = {
	0xbe, 0xef, 0xed, 0x03, 0x03, 0x02, 0x00, 0x0e, 0xff, 0xaf, /* SLP header */
	0x01, 0xc0, 0x00, 0x0a,					    /* PADP */
	0x01, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0xe1, 0x00, /* CMP wakeup */
	0x3a, 0xb6,						    /* CRC-16 */
};

static void test_slp_wakeup(void)
{
	struct slp_header h;
	const uint8_t *body;
	struct padp_header p;
	struct cmp c, init;
	size_t used;
	uint8_t out[64];
	int n;

	CHECK_EQ(slp_decode(wakeup_frame, sizeof(wakeup_frame), &h, &body, &used), 0);
	CHECK_EQ(used, sizeof(wakeup_frame));
	CHECK(h.dest == SLP_SOCKET_DLP && h.src == SLP_SOCKET_DLP && h.type == SLP_TYPE_PADP);
	CHECK(h.len == 14 && h.txid == 0xff);
	CHECK_EQ(padp_decode(body, h.len, &p), 4);
	CHECK(p.type == PADP_DATA && p.flags == (PADP_FL_FIRST | PADP_FL_LAST) && p.size == 10);
	CHECK_EQ(cmp_decode(body + 4, 10, &c), 0);
	CHECK(c.type == CMP_WAKEUP && c.version == 0x0101 && c.baud == 57600);

	/* and back: the same bytes */
	n = slp_encode(&h, body, out, sizeof(out));
	CHECK_EQ(n, (int)sizeof(wakeup_frame));
	CHECK(memcmp(out, wakeup_frame, sizeof(wakeup_frame)) == 0);

	/* the desktop's answer: version min(1.1, 1.2), change baud */
	init = cmp_init_for(&c);
	CHECK(init.type == CMP_INIT && init.version == 0x0101 && init.baud == 57600);
	CHECK_EQ(init.flags, CMP_FL_CHANGE_BAUD);
	c.baud = 9600;
	c.version = 0x0103;
	init = cmp_init_for(&c);
	CHECK(init.version == 0x0102 && init.flags == CMP_FL_LONG_PACKETS);
}

static void test_slp_damage(void)
{
	uint8_t buf[sizeof(wakeup_frame) + 3];
	struct slp_header h;
	const uint8_t *body;
	size_t used;

	/* partial frames ask for more */
	for (size_t n = 0; n < sizeof(wakeup_frame); n++)
		CHECK_EQ(slp_decode(wakeup_frame, n, &h, &body, &used), -EAGAIN);

	/* line noise before a frame is skipped */
	buf[0] = 0x00;
	buf[1] = 0x55;
	buf[2] = 0xff;
	memcpy(buf + 3, wakeup_frame, sizeof(wakeup_frame));
	CHECK_EQ(slp_decode(buf, sizeof(buf), &h, &body, &used), 0);
	CHECK_EQ(used, sizeof(buf));

	/* a bad header checksum, a bad CRC */
	memcpy(buf, wakeup_frame, sizeof(wakeup_frame));
	buf[9] ^= 1;
	CHECK_EQ(slp_decode(buf, sizeof(wakeup_frame), &h, &body, &used), -EBADMSG);
	CHECK_EQ(used, 1);
	memcpy(buf, wakeup_frame, sizeof(wakeup_frame));
	buf[15] ^= 0x10;
	CHECK_EQ(slp_decode(buf, sizeof(wakeup_frame), &h, &body, &used), -EBADMSG);
	memcpy(buf, wakeup_frame, sizeof(wakeup_frame));
	buf[sizeof(wakeup_frame) - 1] ^= 1;
	CHECK_EQ(slp_decode(buf, sizeof(wakeup_frame), &h, &body, &used), -EBADMSG);
}

/* 2500 bytes: fragments of 1024, 1024 and 452; size = total, then offsets. */
static void test_padp_fragments(void)
{
	static const struct {
		size_t offset, len;
		uint8_t flags;
		uint32_t size;
	} want[] = {
		{ 0, 1024, PADP_FL_FIRST | PADP_FL_LONG, 2500 },
		{ 1024, 1024, PADP_FL_LONG, 1024 },
		{ 2048, 452, PADP_FL_LAST | PADP_FL_LONG, 2048 },
	};
	struct padp_reassembly r = { 0 };
	uint8_t msg[2500], hdr[6];
	struct padp_header h, back;
	size_t off, len, n = 0;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7);
	while (padp_fragment(sizeof(msg), n, true, &h, &off, &len)) {
		CHECK(n < 3);
		if (n >= 3)
			break;
		CHECK(off == want[n].offset && len == want[n].len);
		CHECK(h.flags == want[n].flags && h.size == want[n].size);
		CHECK_EQ(padp_encode(&h, hdr, sizeof(hdr)), 6);
		CHECK_EQ(padp_decode(hdr, 6, &back), 6);
		CHECK(back.size == h.size && back.flags == h.flags);
		CHECK_EQ(padp_reassemble(&r, &back, msg + off, len), n == 2 ? 1 : 0);
		n++;
	}
	CHECK_EQ(n, 3);
	CHECK(r.have == sizeof(msg) && memcmp(r.buf, msg, sizeof(msg)) == 0);

	/* a fragment out of place */
	padp_fragment(sizeof(msg), 0, true, &h, &off, &len);
	CHECK_EQ(padp_reassemble(&r, &h, msg, len), 0);
	padp_fragment(sizeof(msg), 2, true, &h, &off, &len);
	CHECK_EQ(padp_reassemble(&r, &h, msg + off, len), -EBADMSG);
	padp_reassembly_free(&r);

	/* short header: exact bytes; too big for a short size field */
	h = (struct padp_header){ .type = PADP_ACK, .flags = 0xc0, .size = 10 };
	CHECK_EQ(padp_encode(&h, hdr, sizeof(hdr)), 4);
	CHECK(hdr[0] == 2 && hdr[1] == 0xc0 && hdr[2] == 0 && hdr[3] == 10);
	h.size = 70000;
	CHECK_EQ(padp_encode(&h, hdr, sizeof(hdr)), -ENOSPC);
	CHECK_EQ(padp_decode(hdr, 3, &back), -EBADMSG);
	hdr[1] = PADP_FL_LONG;
	CHECK_EQ(padp_decode(hdr, 5, &back), -EBADMSG);
}

static void test_net(void)
{
	static const uint8_t hdr_bytes[] = { 0x01, 0x07, 0x00, 0x00, 0x00, 0x16 };
	uint8_t out[NET_HEADER_LEN];
	struct net_header h = { .type = NET_DATA, .txid = 7, .len = 22 };

	net_encode(&h, out);
	CHECK(memcmp(out, hdr_bytes, sizeof(out)) == 0);
	CHECK_EQ(net_decode(hdr_bytes, 6, &h), 0);
	CHECK(h.type == NET_DATA && h.txid == 7 && h.len == 22);
	CHECK_EQ(net_decode(hdr_bytes, 5, &h), -EAGAIN);
	out[0] = 9;
	CHECK_EQ(net_decode(out, 6, &h), -EBADMSG);
	out[0] = 1;
	out[2] = 0x7f; /* 2 GB */
	CHECK_EQ(net_decode(out, 6, &h), -EBADMSG);
	/* the handshake as the facts give it */
	CHECK(net_hs_handheld1[0] == 0x90 && net_hs_handheld1[13] == 0x08 &&
	      net_hs_handheld1[14] == 0x01);
	CHECK(net_hs_handheld2[0] == 0x92 && net_hs_handheld2[33] == 0x1e &&
	      net_hs_handheld2[35] == 0x01 && net_hs_handheld2[49] == 0);
	CHECK(net_hs_desktop1[0] == 0x12 && net_hs_desktop1[1] == 0x01);
	CHECK(net_hs_desktop2[0] == 0x13 && net_hs_desktop2[1] == 0x01);
	CHECK(net_hs_handheld3[0] == 0x93 && sizeof(net_hs_handheld3) == 8);
}

static void test_dlp_args(void)
{
	static uint8_t big[70000];
	uint8_t out[80000];
	uint8_t tiny[3] = { 1, 2, 3 }, shrt[300];
	struct dlp_msg m = { .cmd = DLP_READ_DB_LIST, .argc = 3 }, back;
	int n;

	memset(shrt, 0xab, sizeof(shrt));
	m.args[0] = (struct dlp_arg){ 0x20, tiny, sizeof(tiny) };
	m.args[1] = (struct dlp_arg){ 0x21, shrt, sizeof(shrt) };
	m.args[2] = (struct dlp_arg){ 0x22, big, sizeof(big) };
	n = dlp_encode(&m, out, sizeof(out));
	CHECK_EQ(n, 2 + (2 + 3) + (4 + 300) + (6 + 70000));
	CHECK(out[0] == 0x16 && out[1] == 3);
	CHECK(out[2] == 0x20 && out[3] == 3 && out[4] == 1); /* tiny: id len8 */
	CHECK(out[7] == 0xa1 && out[8] == 0 && out[9] == 0x01 && out[10] == 0x2c); /* short */
	CHECK(out[311] == 0x62 && out[312] == 0 && out[313] == 0 && out[314] == 0x01 &&
	      out[315] == 0x11 && out[316] == 0x70); /* long: 70000 = 0x11170 */
	CHECK_EQ(dlp_decode(out, (size_t)n, &back), 0);
	CHECK(!back.response && back.cmd == DLP_READ_DB_LIST && back.argc == 3);
	CHECK(back.args[1].id == 0x21 && back.args[1].len == 300);
	CHECK(back.args[2].id == 0x22 && back.args[2].len == 70000);
	CHECK(dlp_find_arg(&back, 0x22)->data == out + 317);
	CHECK(dlp_find_arg(&back, 0x23) == NULL);

	/* every truncation is an error, never a read past the end */
	for (int k = 0; k < n; k++) {
		uint8_t *cut = malloc((size_t)k + 1);

		memcpy(cut, out, (size_t)k);
		CHECK_EQ(dlp_decode(cut, (size_t)k, &back), -EBADMSG);
		free(cut);
		if (k == 400)
			k = n - 10; /* the long argument's body: a few cuts suffice */
	}

	/* a response: cmd|0x80 argc err */
	m = (struct dlp_msg){ .cmd = DLP_READ_DB_LIST, .response = true, .err = DLP_ERR_NOT_FOUND };
	n = dlp_encode(&m, out, sizeof(out));
	CHECK_EQ(n, 4);
	CHECK(out[0] == 0x96 && out[1] == 0 && out[2] == 0 && out[3] == 5);
	CHECK_EQ(dlp_decode(out, 4, &back), 0);
	CHECK(back.response && back.err == DLP_ERR_NOT_FOUND);
	CHECK_EQ(dlp_encode(&m, out, 3), -ENOSPC);
}

static void test_dlp_date(void)
{
	uint8_t d[DLP_DATE_LEN];
	static const uint8_t want[DLP_DATE_LEN] = { 0x07, 0xd3, 12, 31, 23, 59, 58, 0 };

	dlp_date_encode(1072915198, d); /* 2003-12-31 23:59:58 UTC */
	CHECK(memcmp(d, want, sizeof(d)) == 0);
	CHECK_EQ(dlp_date_decode(d), 1072915198);
}

static void fill_db(struct pdb *db, bool resource)
{
	static uint8_t app[] = "categories";
	static uint8_t r0[] = "first", r1[] = "", r2[] = "third record";
	static struct pdb_entry e[3];

	memset(db, 0, sizeof(*db));
	strcpy(db->name, resource ? "Clock-PAPP" : "MemoDB");
	db->attr = resource ? PDB_ATTR_RESOURCE : 0x0008;
	db->version = 3;
	db->ctime = 3000000000u;
	memcpy(db->type, resource ? "appl" : "DATA", 4);
	memcpy(db->creator, resource ? "cLoK" : "memo", 4);
	db->appinfo = resource ? NULL : app;
	db->appinfo_len = resource ? 0 : sizeof(app);
	e[0] = (struct pdb_entry){ .attr = 0x40,
				   .uid = 0x123456,
				   .type = "code",
				   .id = 1,
				   .data = r0,
				   .len = sizeof(r0) };
	e[1] = (struct pdb_entry){
		.attr = 0x01, .uid = 2, .type = "tAIN", .id = 1000, .data = r1, .len = 0
	};
	e[2] = (struct pdb_entry){
		.attr = 0, .uid = 3, .type = "MBAR", .id = 7, .data = r2, .len = sizeof(r2)
	};
	db->entries = e;
	db->count = 3;
}

static void test_pdb_roundtrip(void)
{
	for (int resource = 0; resource <= 1; resource++) {
		struct pdb db, back;
		uint8_t *img;
		size_t len;

		fill_db(&db, resource);
		CHECK_EQ(pdb_write(&db, &img, &len), 0);
		CHECK_EQ(img[76] << 8 | img[77], 3); /* record count */
		CHECK_EQ(pdb_parse(img, len, &back), 0);
		CHECK(strcmp(back.name, db.name) == 0 && back.attr == db.attr);
		CHECK(back.version == 3 && back.ctime == 3000000000u);
		CHECK(memcmp(back.type, db.type, 4) == 0 &&
		      memcmp(back.creator, db.creator, 4) == 0);
		CHECK_EQ(back.appinfo_len, db.appinfo_len);
		CHECK_EQ(back.count, 3);
		for (size_t i = 0; i < 3 && back.count == 3; i++) {
			CHECK_EQ(back.entries[i].len, db.entries[i].len);
			CHECK(memcmp(back.entries[i].data, db.entries[i].data, db.entries[i].len) ==
			      0);
			if (resource) {
				CHECK(memcmp(back.entries[i].type, db.entries[i].type, 4) == 0);
				CHECK_EQ(back.entries[i].id, db.entries[i].id);
			} else {
				CHECK_EQ(back.entries[i].attr, db.entries[i].attr);
				CHECK_EQ(back.entries[i].uid, db.entries[i].uid);
			}
		}
		pdb_free(&back);

		/* truncated files and broken offsets are errors */
		for (size_t cut = 0; cut < PDB_HEADER_LEN + 30; cut++) {
			if (pdb_parse(img, cut, &back) == 0) {
				fprintf(stderr, "a %zu-byte prefix parsed\n", cut);
				check_failures++;
				pdb_free(&back);
			}
		}
		img[PDB_HEADER_LEN + (resource ? 6 : 0) + 3] = 0x01; /* entry 0 before the list */
		CHECK_EQ(pdb_parse(img, len, &back), -EBADMSG);
		free(img);
	}
}

static void test_sysinfo(void)
{
	struct dlp_sysinfo s = {
		.rom_version = 0x05003000,
		.locale = 0x00010001,
		.prod_id = "palm",
		.prod_id_len = 4,
		.dlp_major = 1,
		.dlp_minor = 2,
		.compat_major = 1,
		.max_record = 0xfff0,
	};
	uint8_t a0[DLP_SYSINFO_ARG0_MAX], a1[DLP_SYSINFO_ARG1_LEN];
	static const uint8_t want0[] = { 0x05, 0x00, 0x30, 0x00, 0x00, 0x01, 0x00,
					 0x01, 0x00, 4,	   'p',	 'a',  'l',  'm' };
	static const uint8_t want1[] = { 0, 1, 0, 2, 0, 1, 0, 0, 0, 0, 0xff, 0xf0 };
	struct dlp_sysinfo back;
	size_t n = dlp_sysinfo_encode(&s, a0, a1);

	CHECK_EQ(n, sizeof(want0));
	CHECK(memcmp(a0, want0, sizeof(want0)) == 0);
	CHECK(memcmp(a1, want1, sizeof(want1)) == 0);
	CHECK_EQ(dlp_sysinfo_decode(a0, n, a1, sizeof(a1), &back), 0);
	CHECK(back.rom_version == s.rom_version && back.prod_id_len == 4);
	CHECK(back.dlp_major == 1 && back.dlp_minor == 2 && back.max_record == 0xfff0);
	CHECK_EQ(dlp_sysinfo_decode(a0, n, NULL, 0, &back), 0); /* DLP 1.1: no arg 1 */
	CHECK_EQ(back.dlp_major, 0);
	CHECK_EQ(dlp_sysinfo_decode(a0, 9, a1, sizeof(a1), &back), -EBADMSG);
	CHECK_EQ(dlp_sysinfo_decode(a0, n - 1, a1, sizeof(a1), &back), -EBADMSG);
	CHECK_EQ(dlp_sysinfo_decode(a0, n, a1, 11, &back), -EBADMSG);
	a0[9] = 200;
	CHECK_EQ(dlp_sysinfo_decode(a0, sizeof(a0), NULL, 0, &back), -EBADMSG);
}

static void test_dblist(void)
{
	struct dlp_dbinfo db[2] = {
		{ .attr = 0x0008,
		  .type = "DATA",
		  .creator = "memo",
		  .version = 1,
		  .modnum = 7,
		  .ctime = 1072915198,
		  .mtime = 1072915199,
		  .index = 0,
		  .name = "MemoDB" },
		{ .attr = 0x0001,
		  .type = "appl",
		  .creator = "cLoK",
		  .version = 3,
		  .index = 1,
		  .name = "Clock-PAPP" },
	};
	struct dlp_dbinfo back[2];
	uint8_t out[256], req[4], flags, card;
	uint16_t start, last;
	size_t count;
	bool more;
	int n;

	dlp_dblist_request_encode(DLP_DBLIST_RAM | DLP_DBLIST_MULTIPLE, 0, 5, req);
	CHECK(req[0] == 0xa0 && req[1] == 0 && req[2] == 0 && req[3] == 5);
	CHECK_EQ(dlp_dblist_request_decode(req, 4, &flags, &card, &start), 0);
	CHECK(flags == 0xa0 && start == 5);
	CHECK_EQ(dlp_dblist_request_decode(req, 3, &flags, &card, &start), -EBADMSG);

	n = dlp_dblist_encode(db, 2, 1, true, out, sizeof(out));
	/* entries: 44 + "MemoDB\0" = 51 -> 52; 44 + "Clock-PAPP\0" = 55 -> 56 */
	CHECK_EQ(n, 4 + 52 + 56);
	CHECK(out[0] == 0 && out[1] == 1 && out[2] == DLP_DBLIST_MORE && out[3] == 2);
	CHECK_EQ(out[4], 52);
	CHECK(memcmp(out + 4 + 4, "DATA", 4) == 0 && memcmp(out + 4 + 8, "memo", 4) == 0);
	CHECK(out[4 + 18] == 0x07 && out[4 + 19] == 0xd3); /* created 2003 */
	CHECK(strcmp((char *)out + 4 + 44, "MemoDB") == 0);
	CHECK(out[56 + 42] == 0 && out[56 + 43] == 1); /* index of the second */
	CHECK(strcmp((char *)out + 56 + 44, "Clock-PAPP") == 0);

	CHECK_EQ(dlp_dblist_decode(out, (size_t)n, back, 2, &count, &last, &more), 0);
	CHECK(count == 2 && last == 1 && more);
	CHECK(strcmp(back[1].name, "Clock-PAPP") == 0 && memcmp(back[1].creator, "cLoK", 4) == 0);
	CHECK(back[0].ctime == 1072915198 && back[0].modnum == 7 && back[1].version == 3);
	for (int cut = 0; cut < n; cut++)
		CHECK_EQ(dlp_dblist_decode(out, (size_t)cut, back, 2, &count, &last, &more),
			 -EBADMSG);
	out[4] = 200; /* an entry longer than the payload */
	CHECK_EQ(dlp_dblist_decode(out, (size_t)n, back, 2, &count, &last, &more), -EBADMSG);
	out[4] = 52;
	memset(out + 4 + 44, 'x', 8); /* no NUL inside the entry */
	CHECK_EQ(dlp_dblist_decode(out, (size_t)n, back, 2, &count, &last, &more), -EBADMSG);
	CHECK_EQ(dlp_dblist_encode(db, 2, 1, false, out, 100), -ENOSPC);
}

int main(void)
{
	test_sysinfo();
	test_dblist();
	test_slp_wakeup();
	test_slp_damage();
	test_padp_fragments();
	test_net();
	test_dlp_args();
	test_dlp_date();
	test_pdb_roundtrip();
	return check_result("test_hotsync");
}
