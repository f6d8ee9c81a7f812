#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Keep docs/walkthrough.md true to a real run.

usage: walkthrough.py WALKTHROUGH.md SEND.jsonl RECV.jsonl

Each ```trace block of the walkthrough quotes --trace lines and is
followed by a comment "<!-- kinds: K1 K2 ... -->" naming, in order, the
event kind of each line. Every quoted line must match the text of an
event of the same side in that side's --trace-json file of a real run,
numbers aside (timestamps, QPNs, PSNs, keys, addresses, hashes and
counts differ from run to run), and that event's kind must be the one
the comment names. Prints one line per problem; exits 1 if there is
any, 2 on a file that cannot be read or parsed.
"""
import json
import re
import sys

LINE = re.compile(r"^\[\s*[0-9.]+\] (\S+) (\S+) (.*)$")
BLOCK = re.compile(r"```trace\n(.*?)```\n<!-- kinds: ([^>]*) -->", re.S)


def norm(text):
    text = re.sub(r"\b[0-9a-f]{8,}\b", "#", text)   # hashes, GIDs' words
    text = re.sub(r"0x[0-9a-fA-F]+", "0x#", text)
    text = re.sub(r"[0-9]+", "#", text)
    return " ".join(text.split())


def events(path, side):
    """{normalized text: [kinds]} of one side's JSON lines."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            try:
                e = json.loads(raw)
            except ValueError as err:
                sys.exit(f"{path}:{n}: not JSON: {err}")
            if e.get("side") != side:
                continue
            out.setdefault(norm(e["text"]), []).append(e["kind"])
    if not out:
        sys.exit(f"{path}: no event of side {side}")
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    doc = open(sys.argv[1], encoding="utf-8").read()
    seen = {"send": events(sys.argv[2], "send"),
            "recv": events(sys.argv[3], "recv")}
    blocks = BLOCK.findall(doc)
    fences = doc.count("```trace")
    problems = []
    if fences != len(blocks):
        problems.append(f"{fences} trace blocks, only {len(blocks)} "
                        "followed by a kinds comment")
    quoted = 0
    for body, kinds in blocks:
        lines = [l for l in body.splitlines() if l.strip()]
        kinds = kinds.split()
        if len(lines) != len(kinds):
            problems.append(f"{len(lines)} lines but {len(kinds)} kinds: "
                            f"{lines[0][:60]}...")
            continue
        for line, kind in zip(lines, kinds):
            quoted += 1
            m = LINE.match(line)
            if not m or m.group(1) not in seen:
                problems.append(f"not a trace line: {line[:70]}")
                continue
            got = seen[m.group(1)].get(norm(m.group(3)))
            if not got:
                problems.append(f"no such line in the run: {line[:90]}")
            elif kind not in got:
                problems.append(f"kind {kind}, the run says {got[0]}: "
                                f"{line[:70]}")
    for p in problems:
        print(p)
    print(f"walkthrough: {quoted} quoted lines in {len(blocks)} blocks, "
          f"{len(problems)} problem(s)")
    return 1 if problems or not quoted else 0


if __name__ == "__main__":
    sys.exit(main())
