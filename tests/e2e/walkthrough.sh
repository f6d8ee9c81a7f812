#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# docs/walkthrough.md stays true: the push it follows (4 MiB, the
# defaults, node A to node B) is run again with --trace-json on both
# sides, and every --trace line the walkthrough quotes must match an
# event of that run, numbers aside, of the kind the walkthrough names
# (tests/e2e/walkthrough.py). A copy of the walkthrough with one kind
# changed, and one with a line's words changed, must fail the check.
# Its "by hand" commands (the indented block after "<!-- by hand -->")
# run as written, one by one, from a directory of this tree (read-only
# in the guests, as the tree is) holding ./rdmapush and scripts/: each
# exits 0, the file arrives whole and the picture is drawn. The same
# block without its first line (no /tmp/in on B) must fail.
# And rdma-lab's wait reports the command's own status: a receiver run
# without exec (under the job's sh) and stopped by SIGTERM exits 0.
. "$(dirname "$0")/lib.sh"

DOC=$TOP/docs/walkthrough.md
CHECK=$TOP/tests/e2e/walkthrough.py
J=$SHARE/e2e-walk
rm -rf "$J" && mkdir -p "$J"
HAND=$TOP/.walkthrough-hand.$$
trap 'rm -rf "$HAND"' EXIT

# --- rdma-lab: wait gives the command's status, not its shell's ---------
fresh_dir "$RCV" /tmp/e2e-walk >/dev/null
"$LAB" bg "$RCV" term -- "$RP recv -p $PORT -o /tmp/e2e-walk"
if await_listen "$RCV"; then
	"$LAB" signal "$RCV" term TERM
	out=$(recv_wait term 30 2>&1); rc=$?
	[ $rc = 0 ] &&
		ok "lab: a receiver run without exec, stopped by signal TERM: wait says exit 0" ||
		fail "lab: wait after signal TERM" "exit $rc, rdmapush exits 0: $(echo "$out" | tail -1)"
else
	fail "lab: wait after signal TERM" "the receiver did not listen"
	"$LAB" signal "$RCV" term KILL >/dev/null 2>&1
	recv_wait term 10 >/dev/null 2>&1
fi

# --- The "by hand" commands, as written ------------------------------
# by_hand DOC: run DOC's block from $HAND (made afresh); print the
# first failing line and its last output lines; 0 if every line exits 0.
by_hand() {
	local cmds line out rc n=0
	cmds=$(sed -n '/^<!-- by hand -->$/,/^$/{/^    /s/^    //p}' "$1")
	[ -n "$cmds" ] || { echo "no \"<!-- by hand -->\" block"; return 1; }
	rm -rf "$HAND" && mkdir "$HAND" &&
		ln -s ../rdmapush ../scripts "$HAND"/ || return 1
	while IFS= read -r line; do
		n=$((n + 1))
		out=$(cd "$HAND" && bash -c "$line" 2>&1 </dev/null); rc=$?
		if [ $rc != 0 ]; then
			echo "line $n exits $rc: $line: $(echo "$out" | tail -2 | tr '\n' ' ')"
			return 1
		fi
	done <<<"$cmds"
	[ "$n" -ge 5 ] || { echo "only $n commands"; return 1; }
}
if why=$(by_hand "$DOC"); then
	a=$(digest "$SND" /tmp/demo.bin)
	b=$(digest "$RCV" /tmp/in/demo.bin)
	if [ -n "$a" ] && [ "$a" = "$b" ] && grep -q '<svg' "$HAND/session.svg"; then
		ok "docs/walkthrough.md's commands run as written: the file arrives whole, the picture is drawn"
	else
		fail "the walkthrough's commands" "sha256 '$a' and '$b', or no session.svg"
	fi
else
	fail "the walkthrough's commands" "$why"
fi
sed '/^<!-- by hand -->$/{n;d}' "$DOC" >"$J/hand.md"
if why=$(RP_LAB_TIMEOUT=20 by_hand "$J/hand.md"); then
	fail "the commands' check can fail" "the block without its first line passed"
else
	ok "the commands' check can fail: without /tmp/in on B ($(echo "$why" | cut -c1-50))"
fi
"$LAB" signal "$RCV" recv KILL >/dev/null 2>&1
"$LAB" wait "$RCV" recv --timeout 10 >/dev/null 2>&1

# --- The walkthrough's quoted lines ----------------------------------
fresh_dir "$RCV" /tmp/e2e-walk >/dev/null
mkdata "$SND" /tmp/e2e-walk-src/demo.bin 4194304 >/dev/null
recv_bg walk "--once -t --trace-json $J/recv.jsonl -o /tmp/e2e-walk" ||
	{ fail "receiver start" "did not listen"; done_testing; }
out=$(send "-t --trace-json $J/send.jsonl" /tmp/e2e-walk-src/demo.bin "$RCV_IP" 2>&1)
src=$?
rout=$(recv_wait walk 2>&1)
rrc=$?
if [ $src -eq 0 ] && [ $rrc -eq 0 ]; then
	ok "the walkthrough's push, traced as text and as JSON on both sides"
else
	fail "the walkthrough's push" "sender $src, receiver $rrc: $(echo "$out$rout" | tail -3)"
fi

if why=$("$PYTHON3" "$CHECK" "$DOC" "$J/send.jsonl" "$J/recv.jsonl" 2>&1); then
	ok "every line docs/walkthrough.md quotes is in the run, of the kind it names ($(echo "$why" | tail -1))"
else
	fail "docs/walkthrough.md against a real run" "$why"
fi

# The check can fail: a kind named wrong, a line that no run prints.
sed '0,/<!-- kinds: pd.alloc /s//<!-- kinds: cq.create /' "$DOC" >"$J/kind.md"
sed '0,/PD allocated (protection/s//PD created (protection/' "$DOC" >"$J/text.md"
for bad in kind text; do
	if cmp -s "$DOC" "$J/$bad.md"; then
		fail "the check catches a wrong $bad" "the mutation changed nothing"
	elif "$PYTHON3" "$CHECK" "$J/$bad.md" "$J/send.jsonl" "$J/recv.jsonl" >/dev/null 2>&1; then
		fail "the check catches a wrong $bad" "a walkthrough with a wrong $bad passed"
	else
		ok "the check catches a wrong $bad"
	fi
done
rm -rf "$J" "$HAND"
done_testing
