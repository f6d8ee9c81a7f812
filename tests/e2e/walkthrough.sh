#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# docs/walkthrough.md stays true: the push it follows (4 MiB, the
# defaults, node A to node B) is run again with --trace-json on both
# sides, and every --trace line the walkthrough quotes must match an
# event of that run, numbers aside, of the kind the walkthrough names
# (tests/e2e/walkthrough.py). A copy of the walkthrough with one kind
# changed, and one with a line's words changed, must fail the check.
. "$(dirname "$0")/lib.sh"

DOC=$TOP/docs/walkthrough.md
CHECK=$TOP/tests/e2e/walkthrough.py
J=$SHARE/e2e-walk
rm -rf "$J" && mkdir -p "$J"
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
rm -rf "$J"
done_testing
