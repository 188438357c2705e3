#!/bin/bash
# SPDX-License-Identifier: MIT
#
# palm-sync's two-way record sync, clock, device information and card
# commands against the handheld's protocol code on a pty, on the host.  Handheld edits are
# made in the exported store file (records marked dirty and deleted, as
# Palm OS marks them), desktop edits in the desktop's copy; after the
# second sync both hold the same database and no flags.
#
# Usage: twoway-sync.sh PTY_HANDHELD PALM_SYNC FIXTURE_DIR
set -euo pipefail

pty=$1 sync=$2 fx=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
client=("$sync" --port @PTY@ --wait 10 --timeout 10)
mkdir "$tmp/d" "$tmp/h1" "$tmp/h2"

# the first sync reads every record into the copy
"$pty" --store "$fx/MemoDB.pdb" --export "$tmp/h1" -- "${client[@]}" sync MemoDB "$tmp/d" \
	> "$tmp/out" 2> "$tmp/err" || fail "first sync: $(cat "$tmp/err")"
grep -q 'first sync	6 records' "$tmp/out" || fail "first sync: $(cat "$tmp/out")"
[ "$("$sync" digest "$tmp/d/MemoDB.pdb")" = "$("$sync" digest "$fx/MemoDB.pdb")" ] ||
	fail "the first copy is not the handheld's database"

# on the handheld: one edited, one added, one deleted; on the desktop: one
# edited, one added, one deleted, and the handheld's edited one edited too
h=$tmp/h1/MemoDB.pdb d=$tmp/d/MemoDB.pdb
"$sync" edit "$h" a001 "edited on the handheld"
"$sync" edit "$h" a100 "new on the handheld"
"$sync" delete "$h" a002
"$sync" edit "$d" a003 "edited on the desktop"
"$sync" edit "$d" new "new on the desktop"
"$sync" delete "$d" a004
"$sync" edit "$d" a001 "edited on the desktop too"

"$pty" --store "$h" --export "$tmp/h2" -- "${client[@]}" sync MemoDB "$tmp/d" \
	> "$tmp/out" 2> "$tmp/err" || fail "second sync: $(cat "$tmp/err")"
grep -q 'handheld 2 changed 1 deleted	desktop 3 changed 1 deleted	conflicts 1' "$tmp/out" ||
	fail "second sync: $(cat "$tmp/out")"
[ "$("$sync" digest "$d")" = "$("$sync" digest "$tmp/h2/MemoDB.pdb")" ] ||
	fail "after the sync the handheld and the copy differ"
want='7 00a001:c3:23:- 00a003:c2:22:- 00a005:c1:51:- 00a006:c2:65:- 00a100:c0:20:- 800001:c0:19:- 800002:c3:26:-'
[ "$("$sync" dump "$d")" = "$want" ] || fail "the copy holds $("$sync" dump "$d")"

# the clock, read and set; what the handheld says of itself
"$pty" --store "$fx/MemoDB.pdb" -- "${client[@]}" set-time 1000000000 > "$tmp/out" 2> "$tmp/err" ||
	fail "set-time: $(cat "$tmp/err")"
grep -q '^handheld	1000000000	2001-09-09T01:46:40' "$tmp/out" || fail "set-time: $(cat "$tmp/out")"
"$pty" --store "$fx/MemoDB.pdb" -- "${client[@]}" info > "$tmp/out" 2> "$tmp/err" ||
	fail "info: $(cat "$tmp/err")"
grep -q '^databases	rom	9	ram	1$' "$tmp/out" || fail "info: no database counts: $(cat "$tmp/out")"
grep -q '^netsync	off	desktop	192.168.165.30	255.255.255.0$' "$tmp/out" ||
	fail "info: NetSync: $(cat "$tmp/out")"
"$pty" --dlp-version 1.1 --store "$fx/MemoDB.pdb" -- "${client[@]}" info > "$tmp/out" 2>&1 ||
	fail "info (DLP 1.1): $(cat "$tmp/out")"
grep -q '^databases' "$tmp/out" && fail "a DLP 1.1 handheld gave database counts"

# the card, on the default handheld (reports DLP 1.2, answers 1.3's calls,
# as a Tungsten T): files in; a fresh card lists its default directory
# empty; a handheld of DLP 1.2 alone knows no card
for st in "" --slp; do
	"$pty" $st --store "$fx/MemoDB.pdb" -- "${client[@]}" card-install \
		"$fx/NotesToGo.pdb" "$fx/ToolBox.prc" > "$tmp/out" 2> "$tmp/err" ||
		fail "card-install $st: $(cat "$tmp/err")"
	grep -q 'ToolBox.prc	/PALM/Launcher/ToolBox.prc	3367 bytes' "$tmp/out" ||
		fail "card-install $st: $(cat "$tmp/out")"
done
"$pty" --dlp-version 1.4 --store "$fx/MemoDB.pdb" -- "${client[@]}" card-list /PALM \
	> "$tmp/out" 2> "$tmp/err" || fail "card-list: $(cat "$tmp/err")"
[ "$(grep -v '^pty-handheld' "$tmp/out")" = /PALM/Launcher/ ] || fail "card-list: $(cat "$tmp/out")"
if "$pty" --dlp-version 1.2 --store "$fx/MemoDB.pdb" -- "${client[@]}" card-list / \
	> "$tmp/out" 2> "$tmp/err"; then
	fail "a DLP 1.2 handheld listed its card"
fi
grep -q 'knows no expansion cards' "$tmp/err" || fail "card-list (DLP 1.2): $(cat "$tmp/err")"
grep -q 'end_of_sync=1' "$tmp/out" || fail "card-list (DLP 1.2) did not end the sync"

[ $fails = 0 ] && echo "two-way sync, clock, info and card: passed"
exit $((fails > 0))
