#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The built-in applications' databases through palm-sync and the
# handheld's code on a pty, on the host: every field of every record the
# desktop reads back is what the handheld holds, after a backup, after a
# sync that brings the handheld's changes and one that takes the
# desktop's; the handheld's bookkeeping (modification numbers, dates, the
# user info's last sync PC) makes a desktop's sync fast when it made the
# last one and slow when another desktop did or the handheld was reset.
#
# The handheld keeps its store (--export, loaded again at the next run)
# and its user info (--user) between runs, as a handheld does between
# syncs; its user's edits are made in the exported files with palm-sync
# app-edit (marked dirty, as the applications mark them).
#
# Usage: apps-sync.sh PTY_HANDHELD PALM_SYNC FIXTURE_DIR net|slp [EXTRA_DB...|profile=NAME]
# (profile=NAME: the store palm-sim's profile NAME keeps, its applications' databases)
set -euo pipefail

pty=$1 sync=$2 fx=$3 stack=$4
shift 4
if [[ "${1:-}" == profile=* ]]; then
	mapfile -t apps < <("$fx/palm-sim" --profile "${1#profile=}" --print-apps)
	[ ${#apps[@]} -gt 0 ] || { echo "FAIL: no databases for ${1#profile=}" >&2; exit 1; }
else
	apps=(AddressDB DatebookDB ToDoDB MemoDB "$@")
fi
has() { [[ " ${apps[*]} " == *" $1 "* ]]; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
st=()
[ "$stack" = slp ] && st=(--slp)
mkdir "$tmp/hh" "$tmp/a" "$tmp/b" "$tmp/backup"
for n in "${apps[@]}"; do cp "$fx/$n.pdb" "$tmp/hh/"; done

# One HotSync: the handheld's store and user info kept from the last one.
hotsync() {
	local pc=$1 store=() f
	shift
	for f in "$tmp"/hh/*.pdb; do store+=(--store "$f"); done
	rm -rf "$tmp/next" && mkdir "$tmp/next"
	"$pty" "${st[@]}" --user "$tmp/user" "${store[@]}" --export "$tmp/next" -- \
		"$sync" --port @PTY@ --wait 10 --timeout 10 --pc-id "$pc" "$@" \
		> "$tmp/out" 2> "$tmp/err" || { fail "$pc $*: $(cat "$tmp/err")"; return 1; }
	rm -rf "$tmp/hh" && mv "$tmp/next" "$tmp/hh"
}
# every field the desktop has of a database against what the handheld holds
same_fields() {
	"$sync" fields "$1" > "$tmp/desk.txt" 2>&1 || fail "fields $1: $(cat "$tmp/desk.txt")"
	"$sync" fields "$2" > "$tmp/hand.txt" 2>&1 || fail "fields $2: $(cat "$tmp/hand.txt")"
	diff -u "$tmp/hand.txt" "$tmp/desk.txt" > "$tmp/diff" ||
		fail "$3: the desktop's $(basename "$1") differs from the handheld's: $(cat "$tmp/diff")"
}
modnum() { od -An -tu4 --endian=big -j48 -N4 "$1" | tr -d ' '; }
mtime() { od -An -tu4 --endian=big -j40 -N4 "$1" | tr -d ' '; }

# 1. A backup: every field of every record as the handheld holds it, the
# private, archived and deleted ones too, and the app info blocks whole.
hotsync a backup "$tmp/backup"
for n in "${apps[@]}"; do
	same_fields "$tmp/backup/$n.pdb" "$tmp/hh/$n.pdb" "backup"
	cmp -s "$fx/$n.pdb" "$tmp/backup/$n.pdb" || fail "the backup of $n is not the file loaded"
done
"$sync" fields "$tmp/backup/AddressDB.pdb" > "$tmp/f"
grep -q '^appinfo .*labels_renamed=0x004000 country=23 .*,Birthday,' "$tmp/f" ||
	fail "AddressDB's app info: $(head -2 "$tmp/f")"
grep -q '^00b006:c2:118:- .* last=Müller first=Jürgen company=Groß & Söhne GmbH' "$tmp/f" ||
	fail "CP1252 names: $(grep 00b006 "$tmp/f")"
grep -q '^00b003:c1:58:secret ' "$tmp/f" || fail "the private address"
grep -q '^00b007:c0:17:deleted,dirty,archived .*last=Ærø' "$tmp/f" || fail "the archived address"
"$sync" fields "$tmp/backup/DatebookDB.pdb" > "$tmp/f"
grep -q 'alarm=10m repeat=2 every=1 on=0x02 .*except=2004-05-31 except=2004-06-28' "$tmp/f" ||
	fail "the weekly meeting: $(grep 00d001 "$tmp/f")"
"$sync" fields "$tmp/backup/ToDoDB.pdb" > "$tmp/f"
grep -q 'due=2004-05-15 priority=2 complete=1' "$tmp/f" || fail "a done to-do: $(cat "$tmp/f")"

if has TasksDB-PTod; then
	"$sync" fields "$tmp/backup/TasksDB-PTod.pdb" > "$tmp/f"
	grep -q '^appinfo .* sort_order=1 colors_edited=0x0006 colors=0,3,5,0,' "$tmp/f" ||
		fail "TasksDB-PTod's app info: $(head -2 "$tmp/f")"
	grep -q '^00e001:c2:57:- due=2004-05-20 priority=1 complete=0 status=0x0000 completed=none alarm=09:00-1d description=File the tax return note=Forms in the blue folder$' "$tmp/f" ||
		fail "a task with an alarm: $(grep 00e001 "$tmp/f")"
	grep -q '^00e003:c0:42:dirty .*repeat=4 every=1 .*from=2004-06-01 until=none description=Call Zoë note=about the café$' "$tmp/f" ||
		fail "a repeating task: $(grep 00e003 "$tmp/f")"
	grep -q '^00e002:.* complete=1 status=0x0001 completed=2004-05-14 ' "$tmp/f" ||
		fail "a done task: $(grep 00e002 "$tmp/f")"
	grep -q '^00e005:c2:29:secret .*description=Read „Der Zauberberg“$' "$tmp/f" ||
		fail "the private task: $(grep 00e005 "$tmp/f")"
fi

# 2. Desktop A's first sync of each application: copies of the handheld's
# records (deleted and archived ones purged on both sides).
for n in "${apps[@]}"; do
	m0=$(modnum "$tmp/hh/$n.pdb") t0=$(mtime "$tmp/hh/$n.pdb")
	hotsync a sync "$n" "$tmp/a" || continue
	grep -q "	first sync	" "$tmp/out" || fail "A's first sync of $n: $(cat "$tmp/out")"
	same_fields "$tmp/a/$n.pdb" "$tmp/hh/$n.pdb" "first sync"
	purged=$("$sync" dump "$fx/$n.pdb" | tr ' ' '\n' | grep -c deleted || true)
	[ "$(modnum "$tmp/hh/$n.pdb")" = $((m0 + purged)) ] ||
		fail "$n: modification number $(modnum "$tmp/hh/$n.pdb"), not $m0 + $purged purged"
	if [ "$purged" -gt 0 ] && [ "$(mtime "$tmp/hh/$n.pdb")" -le "$t0" ]; then
		fail "$n: the modification date did not move when the purged database was closed"
	fi
done

# 3. Handheld to desktop: the user edits on the handheld (dirty), A syncs
# fast (it made the last sync) and reads every change back.
"$sync" app-edit "$tmp/hh/AddressDB.pdb" 00b002 "city=Arlington" "note=Nanoseconds\\nare 30 cm"
"$sync" app-edit "$tmp/hh/AddressDB.pdb" 00b100 last=Ståhl first=Åsa "phone1=+46 8 123 45"
"$sync" app-edit "$tmp/hh/DatebookDB.pdb" 00d007 "description=Pay the rent (€ 900)"
"$sync" app-edit "$tmp/hh/ToDoDB.pdb" 00e004 priority=1 due=2004-07-01
"$sync" app-edit "$tmp/hh/MemoDB.pdb" 00a003 "text=Books to read:\\nDie Blechtrommel"
for n in AddressDB DatebookDB ToDoDB MemoDB; do
	hotsync a sync "$n" "$tmp/a" || continue
	grep -q "	fast sync	" "$tmp/out" || fail "A's second sync of $n: $(cat "$tmp/out")"
	same_fields "$tmp/a/$n.pdb" "$tmp/hh/$n.pdb" "handheld to desktop"
done
grep -q '	handheld 1 changed' "$tmp/out" || fail "MemoDB's fast sync: $(cat "$tmp/out")"
"$sync" fields "$tmp/a/AddressDB.pdb" | grep 'last=Ståhl first=Åsa phone1=+46 8 123 45' >/dev/null ||
	fail "the address added on the handheld is not on the desktop"
"$sync" fields "$tmp/a/ToDoDB.pdb" | grep 'due=2004-07-01 priority=1 complete=0 description=Buy a new stylus' >/dev/null ||
	fail "the to-do changed on the handheld is not on the desktop"

# The newer applications' too, when the store has them.
new=()
for n in ContactsDB-PAdd CalendarDB-PDat MemosDB-PMem TasksDB-PTod; do has $n && new+=("$n"); done
if [ ${#new[@]} -gt 0 ]; then
	has TasksDB-PTod &&
		"$sync" app-edit "$tmp/hh/TasksDB-PTod.pdb" 00e004 complete=1 completed=2004-07-02 "note=the blue one"
	has ContactsDB-PAdd && "$sync" app-edit "$tmp/hh/ContactsDB-PAdd.pdb" 00f001 "city1=Arlington"
	has CalendarDB-PDat && "$sync" app-edit "$tmp/hh/CalendarDB-PDat.pdb" 00d001 "location=Raum 5"
	has MemosDB-PMem && "$sync" app-edit "$tmp/hh/MemosDB-PMem.pdb" 00a001 "text=Shopping\\ntea"
	for n in "${new[@]}"; do
		hotsync a sync "$n" "$tmp/a" || continue
		grep -q "	fast sync	.*handheld 1 changed" "$tmp/out" || fail "A's second sync of $n: $(cat "$tmp/out")"
		same_fields "$tmp/a/$n.pdb" "$tmp/hh/$n.pdb" "handheld to desktop"
	done
	if has TasksDB-PTod; then
		"$sync" fields "$tmp/a/TasksDB-PTod.pdb" |
			grep -q 'due=none priority=3 complete=1 status=0x0001 completed=2004-07-02 description=Buy a new stylus note=the blue one' ||
			fail "the task done on the handheld is not on the desktop"
		"$sync" app-edit "$tmp/a/TasksDB-PTod.pdb" new "description=Rückruf Frau Ødegård" due=2004-07-20 priority=2
	fi
	has MemosDB-PMem && "$sync" app-edit "$tmp/a/MemosDB-PMem.pdb" 00a002 "text=Notes: €"
	has CalendarDB-PDat && "$sync" app-edit "$tmp/a/CalendarDB-PDat.pdb" new date=2004-07-14 "description=Fête"
	has ContactsDB-PAdd && "$sync" app-edit "$tmp/a/ContactsDB-PAdd.pdb" 00f002 "title=Geschäftsführer"
	for n in "${new[@]}"; do
		hotsync a sync "$n" "$tmp/a" || continue
		grep -q "	fast sync	.*desktop 1 changed" "$tmp/out" || fail "A's sync of $n to the handheld: $(cat "$tmp/out")"
		same_fields "$tmp/a/$n.pdb" "$tmp/hh/$n.pdb" "desktop to handheld"
	done
	has TasksDB-PTod && { "$sync" fields "$tmp/hh/TasksDB-PTod.pdb" |
		grep -q 'due=2004-07-20 priority=2 complete=0 status=0x0000 completed=none description=Rückruf Frau Ødegård$' ||
		fail "the task added on the desktop is not on the handheld"; }
fi

# 4. Desktop to handheld: edits in A's copies go to the handheld.
"$sync" app-edit "$tmp/a/AddressDB.pdb" 00b004 "company=Linux Foundation" "custom2=Helsinki"
"$sync" app-edit "$tmp/a/DatebookDB.pdb" new date=2004-07-14 "description=Fête nationale"
"$sync" app-edit "$tmp/a/ToDoDB.pdb" 00e001 complete=1
"$sync" app-edit "$tmp/a/MemoDB.pdb" new "text=Smørrebrød\\nfor Friday"
for n in AddressDB DatebookDB ToDoDB MemoDB; do
	m0=$(modnum "$tmp/hh/$n.pdb")
	hotsync a sync "$n" "$tmp/a" || continue
	grep -q "	fast sync	.*desktop 1 changed" "$tmp/out" || fail "A's sync of $n: $(cat "$tmp/out")"
	same_fields "$tmp/a/$n.pdb" "$tmp/hh/$n.pdb" "desktop to handheld"
	[ "$(modnum "$tmp/hh/$n.pdb")" -gt "$m0" ] || fail "$n: the write left the modification number"
done
"$sync" fields "$tmp/hh/AddressDB.pdb" | grep 'company=Linux Foundation .*custom2=Helsinki' >/dev/null ||
	fail "the address changed on the desktop is not on the handheld"
"$sync" fields "$tmp/hh/DatebookDB.pdb" | grep 'date=2004-07-14 untimed description=Fête nationale' >/dev/null ||
	fail "the event added on the desktop is not on the handheld"

# 5. Two desktops: B syncs (slow: A made the last sync); the user edits;
# A syncs (slow: B made the last one) and clears the handheld's flags; B
# syncs: slow again, so it still finds the change that a fast sync, going
# by the cleared flags, would have missed; then B's next sync is fast.
hotsync b sync ToDoDB "$tmp/b" && grep -q "	first sync	" "$tmp/out" || fail "B's first sync: $(cat "$tmp/out")"
"$sync" app-edit "$tmp/hh/ToDoDB.pdb" 00e003 "note=about the café, Tuesday"
hotsync a sync ToDoDB "$tmp/a" && grep -q "	slow sync	.*handheld 1 changed" "$tmp/out" ||
	fail "A after B: $(cat "$tmp/out")"
"$sync" dump "$tmp/hh/ToDoDB.pdb" | grep dirty >/dev/null && fail "A's sync left dirty records"
hotsync b sync ToDoDB "$tmp/b" && grep -q "	slow sync	.*handheld 1 changed" "$tmp/out" ||
	fail "B after A: $(cat "$tmp/out")"
"$sync" fields "$tmp/b/ToDoDB.pdb" | grep 'note=about the café, Tuesday' >/dev/null ||
	fail "B missed the handheld's change"
same_fields "$tmp/b/ToDoDB.pdb" "$tmp/hh/ToDoDB.pdb" "B's slow sync"
hotsync b sync ToDoDB "$tmp/b" && grep -q "	fast sync	" "$tmp/out" || fail "B again: $(cat "$tmp/out")"

# 6. A handheld reset (its user info lost: no last sync PC): slow.
rm "$tmp/user"
hotsync a sync ToDoDB "$tmp/a" && grep -q "	slow sync	" "$tmp/out" || fail "after a reset: $(cat "$tmp/out")"
same_fields "$tmp/a/ToDoDB.pdb" "$tmp/hh/ToDoDB.pdb" "after a reset"

[ $fails = 0 ] && echo "the built-in applications' data, both directions, two desktops: passed"
exit $((fails > 0))
