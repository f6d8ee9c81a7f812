#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks an SVG of rdmapush render (tests/render/render.sh, chromium.sh).
# Always: well-formed XML with an <svg> root, standalone (no <script>, no
# on* handler, no href, no URL but the SVG namespace). Then each WHAT:
#   lifelines                  both sides' lifeline
#   chain:N                    a chain's picture: N lifelines, and each
#                              pair k's group of rows (N - 1 of them)
#                              between lifelines k and k + 1: its arrows
#                              (HELLO, MR, FIN, ACK among them, at least
#                              one from one to the other), its one data
#                              block, its QP bands beside those two
#   bands:SIDE:QP:S1,S2,...    QP's state band rects on SIDE (send|recv)
#   arrows:T1,T2,...           a message arrow of each type
#   noarrow:T                  no arrow of type T (collapsed)
#   text:STRING                a <text> showing STRING (as parsed)
#   notext:STRING              no <text> showing STRING
#   datapos:A:B1,B2,...        the data block below the first arrow of
#                              type A, above every arrow of each type B
#                              (band:S: above SIDE's bands in state S)
#   objs:SIDE:pd,mr,...        object markers on SIDE
#   noscript                   no element but SVG's own came from a trace
#   maxbytes:N                 the file is at most N bytes
#   wire:N                     the packet lane of a capture of N packets,
#                              below the lifelines' feet: request arrows
#                              from the sender's lifeline to the
#                              receiver's, ACK arrows back
#   wirefold                   a folded row in the packet lane
#   nowire                     no packet lane
#   wirerow:A|B|...            one row of the packet lane shows each of
#                              A, B, ... (a message and the post tied to
#                              it)
# usage: check_svg.py FILE.svg WHAT...   exit 0, or 1 naming what failed
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
SVG_TAGS = {"svg", "title", "style", "rect", "text", "line", "path",
            "circle", "g"}


def chain(root, n):
    """The lifelines and each pair's group, placed as chain:N says."""
    lines = [e for e in root.iter(NS + "line") if e.get("class") == "lifeline"]
    xs = sorted(float(e.get("x1")) for e in lines)
    errs = []
    if len(xs) != n or {e.get("data-node") for e in lines} != \
            {str(j) for j in range(n)}:
        return ["chain: lifelines %s, nodes %s" %
                (xs, sorted(e.get("data-node") or "" for e in lines))]
    groups = [g for g in root.iter(NS + "g") if g.get("class") == "pair"]
    if sorted(g.get("data-pair") for g in groups) != \
            [str(k) for k in range(n - 1)]:
        return ["chain: pair groups %s" % [g.get("data-pair") for g in groups]]
    for g in groups:
        k = int(g.get("data-pair"))
        m = re.fullmatch(r"translate\(([-0-9.]+),([-0-9.]+)\)",
                         g.get("transform") or "")
        if not m:
            errs.append("chain: pair %d transform %r" % (k, g.get("transform")))
            continue
        dx = float(m.group(1))
        left, right = xs[k], xs[k + 1]
        types, spans = set(), 0
        for e in g.iter(NS + "line"):
            if e.get("class") != "arrow":
                continue
            a, b = sorted((float(e.get("x1")) + dx, float(e.get("x2")) + dx))
            types.add(e.get("data-type"))
            if a < left - 1 or b > right + 1:
                errs.append("chain: pair %d's %s arrow at %g-%g, not "
                            "between %g and %g" % (k, e.get("data-type"),
                                                   a, b, left, right))
            spans += abs(a - left) < 1 and abs(b - right) < 12
        if not spans:
            errs.append("chain: pair %d: no arrow from %g to %g" %
                        (k, left, right))
        for t in ("HELLO", "MR", "FIN", "ACK"):
            if t not in types:
                errs.append("chain: pair %d: no %s arrow" % (k, t))
        data = [e for e in g.iter(NS + "rect") if e.get("class") == "data"]
        if len(data) != 1:
            errs.append("chain: pair %d: %d data blocks" % (k, len(data)))
        for e in g.iter(NS + "rect"):
            if e.get("class") != "band":
                continue
            x = float(e.get("x")) + dx
            near = left if e.get("data-side") == "send" else right
            if abs(x - near) > 100:
                errs.append("chain: pair %d: a %s band at %g, far from %g"
                            % (k, e.get("data-side"), x, near))
    return errs


def datapos(root, after, befores):
    """The data block's rect between the first arrow of type after and
    every arrow of each type in befores (or band:STATE rects)."""
    rects = [e for e in root.iter(NS + "rect") if e.get("class") == "data"]
    if len(rects) != 1:
        return ["datapos: %d data blocks" % len(rects)]
    top = float(rects[0].get("y"))
    bottom = top + float(rects[0].get("height"))
    arrows = {}
    for e in root.iter(NS + "line"):
        if e.get("class") == "arrow":
            arrows.setdefault(e.get("data-type"), []).append(
                float(e.get("y1")))
    errs = []
    if after not in arrows:
        errs.append("datapos: no %s arrow" % after)
    elif min(arrows[after]) >= top:
        errs.append("datapos: the data block (y %g) is above the first "
                    "%s (y %g)" % (top, after, min(arrows[after])))
    for b in befores.split(","):
        if b.startswith("band:"):
            ys = [float(e.get("y")) for e in root.iter(NS + "rect")
                  if e.get("class") == "band" and
                  e.get("data-state") == b[5:]]
        else:
            ys = arrows.get(b, [])
        if not ys:
            errs.append("datapos: no %s" % b)
        elif min(ys) <= bottom:
            errs.append("datapos: the data block (y %g-%g) reaches below "
                        "%s (y %g)" % (top, bottom, b, min(ys)))
    return errs


def wire(root, n):
    """The packet lane as wire:N says."""
    lanes = [g for g in root.iter(NS + "g") if g.get("class") == "wire"]
    if len(lanes) != 1:
        return ["%d packet lanes, not 1" % len(lanes)]
    lane, errs = lanes[0], []
    if lane.get("data-packets") != str(n):
        errs.append("lane of %s packets, not %d" % (lane.get("data-packets"), n))
    feet = max(float(e.get("y2")) for e in root.iter(NS + "line")
               if e.get("class") == "lifeline")
    xs = sorted(float(e.get("x1")) for e in root.iter(NS + "line")
                if e.get("class") == "lifeline")
    ys = [float(t.get("y")) for t in lane.iter(NS + "text")]
    if not ys or min(ys) <= feet:
        errs.append("the lane starts above the lifelines' feet (%s)" % feet)
    dirs = {"request": 0, "ack": 0}
    for g in lane.iter(NS + "g"):
        kind = g.get("data-kind")
        for a in g.iter(NS + "line"):
            if a.get("class") != "arrow" or kind not in dirs:
                continue
            x1, x2 = float(a.get("x1")), float(a.get("x2"))
            right = x1 < x2 and abs(x1 - xs[0]) < 1
            left = x1 > x2 and abs(x1 - xs[-1]) < 1
            if (kind == "request" and right) or (kind == "ack" and left):
                dirs[kind] += 1
    for kind, count in dirs.items():
        if not count:
            errs.append("no %s arrow the right way" % kind)
    return errs


def main():
    path, whats = sys.argv[1], sys.argv[2:]
    raw = open(path, "rb").read()
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as e:
        print("not well-formed XML: %s" % e)
        return 1
    errs = []
    if root.tag != NS + "svg":
        errs.append("root is %s, not svg" % root.tag)
    for el in root.iter():
        for k, v in el.attrib.items():
            if k.lower().startswith("on") or "href" in k:
                errs.append("attribute %s on %s" % (k, el.tag))
    urls = set(re.findall(rb"https?://[^\"' )]+", raw))
    if urls - {b"http://www.w3.org/2000/svg"}:
        errs.append("external reference %s" % urls)
    # What shows: a cut label's whole text in its <title> does not count.
    texts = [t.text or "" for t in root.iter(NS + "text")]
    for w in whats:
        kind, _, arg = w.partition(":")
        if kind == "lifelines":
            sides = {e.get("data-side") for e in root.iter(NS + "line")
                     if e.get("class") == "lifeline"}
            if sides != {"send", "recv"}:
                errs.append("lifelines: %s" % sides)
        elif kind == "chain":
            errs += chain(root, int(arg))
        elif kind == "bands":
            side, qp, states = arg.split(":")
            have = {e.get("data-state") for e in root.iter(NS + "rect")
                    if e.get("class") == "band" and
                    e.get("data-side") == side and e.get("data-qp") == qp}
            for s in states.split(","):
                if s not in have:
                    errs.append("no %s band for %s QP%s (have %s)" %
                                (s, side, qp, sorted(have)))
        elif kind in ("arrows", "noarrow"):
            have = {e.get("data-type") for e in root.iter(NS + "line")
                    if e.get("class") == "arrow"}
            for t in arg.split(","):
                if (t in have) != (kind == "arrows"):
                    errs.append("%s %s (arrows: %s)" % (kind, t, sorted(have)))
        elif kind == "text":
            if not any(arg in t for t in texts):
                errs.append("no text %r" % arg)
        elif kind == "notext":
            if any(arg in t for t in texts):
                errs.append("text %r shows" % arg)
        elif kind == "datapos":
            errs += datapos(root, *arg.split(":", 1))
        elif kind == "objs":
            side, shapes = arg.split(":")
            have = set()
            for e in root.iter():
                cls = (e.get("class") or "").split()
                if "obj" in cls and e.get("data-side") == side:
                    have |= {c[4:] for c in cls if c.startswith("obj-")}
            for s in shapes.split(","):
                if s not in have:
                    errs.append("no %s marker on %s (have %s)" %
                                (s, side, sorted(have)))
        elif kind == "noscript":
            for el in root.iter():
                if el.tag[len(NS):] not in SVG_TAGS:
                    errs.append("element %s in the SVG" % el.tag)
            if b"<script" in raw or b"<b>" in raw:
                errs.append("raw <script> or <b> in the file")
        elif kind == "wire":
            errs += wire(root, int(arg))
        elif kind == "wirerow":
            want = arg.split("|")
            rows = [[t.text or "" for t in g.iter(NS + "text")]
                    for g in root.iter(NS + "g")
                    if g.get("class") == "wire-run"]
            if not any(all(any(w in t for t in row) for w in want)
                       for row in rows):
                errs.append("no packet lane row shows all of %s" % want)
        elif kind == "wirefold":
            if not any(g.get("class") == "wire-fold" for g in root.iter(NS + "g")):
                errs.append("no folded row in the packet lane")
        elif kind == "nowire":
            if any(g.get("class") == "wire" for g in root.iter(NS + "g")):
                errs.append("a packet lane is drawn")
        elif kind == "maxbytes":
            if len(raw) > int(arg):
                errs.append("%d bytes, over %s" % (len(raw), arg))
        else:
            errs.append("unknown check %s" % w)
    if errs:
        print("; ".join(errs))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
