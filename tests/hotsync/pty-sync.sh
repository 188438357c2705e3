#!/bin/bash
# SPDX-License-Identifier: MIT
#
# palm-sync against the handheld's protocol code on a pty, on the host:
# list, backup and install on one stack, every DLP version, a lost PADP
# acknowledgement and a full store.  The same protocol code runs in
# palm-sim; the guest tests then carry it through /dev/pilot.
#
# Usage: pty-sync.sh PTY_HANDHELD PALM_SYNC FIXTURE_DIR EXPECTED_LIST net|slp
set -euo pipefail

pty=$1 sync=$2 fx=$3 expected=$4 stack=$5
store=(--store "$fx/MemoDB.pdb" --store "$fx/AddressDB.pdb" --store "$fx/HelloApp.prc"
	--store "$fx/EmptyDB.pdb")
st=()
[ "$stack" = slp ] && st=(--slp)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
run() { "$pty" "${st[@]}" "$@"; }
client=("$sync" --port @PTY@ --wait 10 --timeout 10)

for v in 1.1 1.2 1.4; do
	# list: every database with name, type, creator, attributes, version
	run --dlp-version $v "${store[@]}" -- "${client[@]}" list > "$tmp/list" 2> "$tmp/err" ||
		fail "list (DLP $v): $(cat "$tmp/err")"
	grep -v '^pty-handheld:' "$tmp/list" | diff -u "$expected" - || fail "list (DLP $v)"
	# the sync ended, and every answer was acknowledged, EndOfSync's too
	grep -q 'end_of_sync=1 .*idle=1' "$tmp/list" || fail "list (DLP $v): $(tail -1 "$tmp/list")"

	# backup: the files come back byte for byte
	rm -rf "$tmp/b" && mkdir "$tmp/b"
	run --dlp-version $v "${store[@]}" -- "${client[@]}" backup "$tmp/b" > "$tmp/out" 2> "$tmp/err" ||
		fail "backup (DLP $v): $(cat "$tmp/err")"
	for f in MemoDB.pdb AddressDB.pdb HelloApp.prc EmptyDB.pdb; do
		cmp "$fx/$f" "$tmp/b/$f" || fail "backup (DLP $v) of $f differs"
	done
	grep -q 'tickles=4$' "$tmp/out" || fail "backup (DLP $v): no tickle after each database"

	# install: what the handheld keeps is what the files hold
	rm -rf "$tmp/e" && mkdir "$tmp/e"
	run --dlp-version $v --export "$tmp/e" -- "${client[@]}" install "$fx/NotesToGo.pdb" \
		"$fx/ToolBox.prc" > "$tmp/out" 2> "$tmp/err" || fail "install (DLP $v): $(cat "$tmp/err")"
	grep -q 'reset=1' "$tmp/out" || fail "install (DLP $v): no ResetSystem after a PRC"
	for f in NotesToGo.pdb ToolBox.prc; do
		[ "$("$sync" digest "$fx/$f")" = "$("$sync" digest "$tmp/e/$f" 2>&1)" ] ||
			fail "install (DLP $v) of $f differs"
	done
done

# the same, driven as pilot-link drives a port: the 1 s kick (the pty
# handheld speaks at once, so it is not sent), exact-size reads, a sleep
# after every write, strict PADP
plc=("${client[@]}" --like-pilot-link)
run "${store[@]}" -- "${plc[@]}" list > "$tmp/list" 2> "$tmp/err" ||
	fail "list (like pilot-link): $(cat "$tmp/err")"
grep -v '^pty-handheld:' "$tmp/list" | diff -u "$expected" - || fail "list (like pilot-link)"
rm -rf "$tmp/b" && mkdir "$tmp/b"
run "${store[@]}" -- "${plc[@]}" backup "$tmp/b" > "$tmp/out" 2> "$tmp/err" ||
	fail "backup (like pilot-link): $(cat "$tmp/err")"
for f in MemoDB.pdb AddressDB.pdb HelloApp.prc EmptyDB.pdb; do
	cmp "$fx/$f" "$tmp/b/$f" || fail "backup (like pilot-link) of $f differs"
done

# a record of 100000 bytes: DLP 1.4 carries it both ways with the Ex
# commands; to a DLP 1.2 handheld the install is refused with a reason
rm -rf "$tmp/e" "$tmp/b" && mkdir "$tmp/e" "$tmp/b"
run --dlp-version 1.4 --export "$tmp/e" -- "${client[@]}" install "$fx/HugeRec.pdb" > /dev/null \
	2> "$tmp/err" || fail "install of a 100000-byte record (DLP 1.4): $(cat "$tmp/err")"
[ "$("$sync" digest "$fx/HugeRec.pdb")" = "$("$sync" digest "$tmp/e/HugeRec.pdb" 2>&1)" ] ||
	fail "the 100000-byte record was not installed as it is"
run --dlp-version 1.4 --store "$fx/HugeRec.pdb" -- "${client[@]}" backup "$tmp/b" > /dev/null \
	2> "$tmp/err" || fail "backup of a 100000-byte record (DLP 1.4): $(cat "$tmp/err")"
cmp "$fx/HugeRec.pdb" "$tmp/b/HugeRec.pdb" || fail "the backup of the 100000-byte record differs"
rm -rf "$tmp/e" && mkdir "$tmp/e"
if run --dlp-version 1.2 --export "$tmp/e" -- "${client[@]}" install "$fx/HugeRec.pdb" > /dev/null \
	2> "$tmp/err"; then
	fail "a 100000-byte record went to a DLP 1.2 handheld"
fi
grep -q 'HugeRec: an entry of 100000 bytes needs DLP 1.4' "$tmp/err" || fail "$(cat "$tmp/err")"
[ ! -e "$tmp/e/HugeRec.pdb" ] || fail "a partial HugeRec was left behind"

# a full store: the install fails with a reason and leaves nothing behind
rm -rf "$tmp/e" && mkdir "$tmp/e"
if run --capacity 100000 --export "$tmp/e" -- "${client[@]}" install "$fx/NotesToGo.pdb" \
	"$fx/Big2MiB.pdb" > "$tmp/out" 2> "$tmp/err"; then
	fail "install into a full store succeeded"
fi
grep -q 'cannot install .*Big2MiB.pdb: it needs 2103374 bytes' "$tmp/err" ||
	fail "full store: no clear message: $(cat "$tmp/err")"
[ -f "$tmp/e/NotesToGo.pdb" ] || fail "full store: the file that fitted was not installed"
[ ! -e "$tmp/e/Big2MiB.pdb" ] || fail "full store: a partial Big2MiB was left behind"

# the handheld claims more room than it has: a write fails part way, the
# partial database is removed, the other file stays, the sync still ends
rm -rf "$tmp/e" && mkdir "$tmp/e"
if run --capacity 200000 --overstate-free 4000000 --export "$tmp/e" -- "${client[@]}" install \
	"$fx/Big2MiB.pdb" "$fx/NotesToGo.pdb" > "$tmp/out" 2> "$tmp/err"; then
	fail "install beyond the real free space succeeded"
fi
grep -q 'WriteRecord Big2MiB: the handheld says: not enough space' "$tmp/err" ||
	fail "refused write: no clear message: $(cat "$tmp/err")"
grep -q 'removed the partly installed Big2MiB' "$tmp/err" || fail "partial Big2MiB: $(cat "$tmp/err")"
[ ! -e "$tmp/e/Big2MiB.pdb" ] || fail "refused write: a partial Big2MiB was left behind"
[ -f "$tmp/e/NotesToGo.pdb" ] || fail "refused write: the next file was not installed"
grep -q 'end_of_sync=1 .*idle=1' "$tmp/out" || fail "refused write: the sync did not end"

if [ "$stack" = slp ]; then
	# CMP: the desktop takes the baud the wakeup offers (57600 by default);
	# a handheld that stays at 9600 gets long PADP headers for everything
	grep -q 'baud=57600 long_headers=0' "$tmp/list" || fail "CMP: $(tail -1 "$tmp/list")"
	rm -rf "$tmp/b" && mkdir "$tmp/b"
	run --wakeup-baud 9600 "${store[@]}" -- "${client[@]}" backup "$tmp/b" > "$tmp/out" \
		2> "$tmp/err" || fail "backup at 9600: $(cat "$tmp/err")"
	grep -q 'baud=9600 long_headers=1' "$tmp/out" || fail "CMP 9600: $(tail -1 "$tmp/out")"
	cmp "$fx/HelloApp.prc" "$tmp/b/HelloApp.prc" || fail "backup at 9600 differs"

	# the handheld loses its ack of a request: the desktop resends after
	# 2 s, the repeat is acked again and answered once
	run --drop-ack "${store[@]}" -- "${client[@]}" list > "$tmp/out" 2> "$tmp/err" ||
		fail "lost ack: $(cat "$tmp/err")"
	grep -q 'duplicates=1 ' "$tmp/out" || fail "lost ack: $(tail -1 "$tmp/out")"
fi

# bad input is refused before the handheld is kept waiting
echo "not a database" > "$tmp/bad.pdb"
if run "${store[@]}" -- "${client[@]}" install "$tmp/bad.pdb" > "$tmp/out" 2> "$tmp/err"; then
	fail "installing a file that is not a database succeeded"
fi
grep -q 'bad.pdb: not a PDB/PRC file' "$tmp/err" || fail "bad file: $(cat "$tmp/err")"
if run "${store[@]}" -- "${client[@]}" backup "$tmp/nowhere" > "$tmp/out" 2> "$tmp/err"; then
	fail "a backup into a missing directory succeeded"
fi
grep -q "cannot back up into $tmp/nowhere" "$tmp/err" || fail "bad dir: $(cat "$tmp/err")"

[ $fails -eq 0 ] && echo "pty-sync $stack: all passed"
exit $((fails > 0))
