#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layout rules of HACKING that a compiler does not check.

Run by tests/layout.sh (make check). Every source file and internal
header belongs to one module, and every module to one layer, in LAYOUT
below. Layers, from the top:

    cli       argv -> a config, printing of results, exit codes
    commands  push/recv (server), ping, devices, render, preflight
    session   the state machines of one transfer; admission
    services  channel (ctrl), codec (proto), auth, verbs, files
    base      trace, err, sys, csum, pool, limits

The files of one module may include and call each other freely (that is
what a module is: session.c and session_hello.c, or the verbs_* files,
are one module). Between modules:

  verbs-h    only src/verbs*.c and src/verbs_int.h include
             <infiniband/verbs.h>, and not the verbs files of the library
             (VERBS_IN_LIB), which the in-memory fabric links too.
  include    a file includes headers of its own layer or lower layers
             only; an include of a higher layer's header is an upward
             include. Headers belong to the module that implements them.
  include-cycle
             the graph module -> module drawn from the includes has no
             cycle (modules of one layer may use each other, one way).
  call       after the build, `nm` of each object under BUILD/src gives a
             file -> file graph (an undefined symbol -> the object that
             defines it): no call from a lower layer up to a higher one,
  call-cycle and no cycle between modules.
  prefix     every global symbol that an object of the library or the
             CLI defines (nm types T D B R, also C G S) starts with rp_;
             main is the one exception.
  unplaced   every src/*.c, src/*.h, include/*.h and include/rdmapush/*.h
             is in LAYOUT, so that a new file cannot dodge the rules.
  lines      a src/*.c over MAX_LINES lines is a WARNING only: split a
             file when it tells two stories, not at a line count.

Known violations in code being rewritten elsewhere are listed, one per
line, in tests/layout.allow ("rule file symbol"); a listed item that no
longer occurs is reported as a WARNING so that the list only shrinks,
and anything not listed fails.

usage: layout.py [--top DIR] [--build DIR] [--allow FILE] [--selftest]
Exit status: 0 all rules hold, 1 a rule failed, 99 a hard error.
"""

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAX_LINES = 900

# Where the data ops may be named (rule op): the op files and their
# table, option parsing and the op-name table.
OP_FILES = ["src/session_op*.c", "src/opts*.c", "src/proto_status.c"]
OP_RE = re.compile(r"\bRP_OP_(WRITE|READ|SEND)\b")

LAYERS = ["base", "services", "session", "commands", "cli"]  # bottom first
RANK = {name: i for i, name in enumerate(LAYERS)}

# pattern (relative to the top of the tree)   layer     module
# The first matching line wins. Headers go with the module that implements
# them; a header-only module (limits) is a module of its own.
LAYOUT = """
src/main.c                          cli       main
src/opts*.c                         cli       opts
src/opts_int.h                      cli       opts
include/rdmapush/opts.h             cli       opts
src/report.c                        cli       report
include/rdmapush/report.h           cli       report

src/server.c                        commands  server
include/rdmapush/server.h           commands  server
src/forks.c                         commands  forks
include/rdmapush/forks.h            commands  forks
src/ping*.c                         commands  ping
include/rdmapush/ping.h             commands  ping
src/devices*.c                      commands  devices
include/rdmapush/devices.h          commands  devices
src/doctor*.c                       commands  doctor
include/rdmapush/doctor.h           commands  doctor
src/render*.c                       commands  render
src/render_int.h                    commands  render
include/rdmapush/render.h           commands  render
src/preflight.c                     commands  preflight
include/rdmapush/preflight.h        commands  preflight
src/api*.c                          commands  api
src/api_int.h                       commands  api
include/rdmapush.h                  commands  api

src/session*.c                      session   session
src/session_int.h                   session   session
src/session_op.h                    session   session
include/rdmapush/session.h          session   session
src/admit.c                         session   admit
include/rdmapush/admit.h            session   admit
src/config.c                        session   config
include/rdmapush/config.h           session   config

src/ctrl.c                          services  channel
src/chan*.c                         services  channel
include/rdmapush/chan.h             services  channel
include/rdmapush/ctrl.h             services  channel
src/proto*.c                        services  codec
src/msg_trace.c                     services  codec
include/rdmapush/msg_trace.h        services  codec
include/rdmapush/proto_msgs.h       services  codec
include/rdmapush/proto.h            services  codec
src/auth.c                          services  auth
include/rdmapush/auth.h             services  auth
src/verbs*.c                        services  verbs
src/verbs_int.h                     services  verbs
include/rdmapush/verbs.h            services  verbs
include/rdmapush/verbs_devices.h    services  verbs
include/rdmapush/fabric_mem.h       services  verbs
src/wc_causes.c                     services  wc_causes
include/rdmapush/wc_causes.h        services  wc_causes
src/fileio*.c                       services  files
src/fileio_int.h                    services  files
include/rdmapush/fileio.h           services  files
include/rdmapush/partial.h          services  files
src/walk.c                          services  files
include/rdmapush/walk.h             services  files
src/hostlist.c                      services  hostlist
src/roce.c                          services  roce
include/rdmapush/roce.h             services  roce
src/roce_group.c                    services  roce
include/rdmapush/roce_group.h       services  roce
src/capture.c                       services  capture
src/pcapfile.c                      services  capture
src/pcap_api.[ch]                   services  capture
include/rdmapush/capture.h          services  capture
include/rdmapush/hostlist.h         services  hostlist

src/trace.c                         base      trace
include/rdmapush/trace.h            base      trace
src/err.c                           base      err
include/rdmapush/err.h              base      err
src/sys.c                           base      sys
include/rdmapush/sys.h              base      sys
src/csum.c                          base      csum
include/rdmapush/csum.h             base      csum
src/pool.c                          base      pool
include/rdmapush/pool.h             base      pool
include/rdmapush/limits.h           base      limits
include/rdmapush/export.h           base      export
src/json.c                          base      json
include/rdmapush/json.h             base      json
"""

TABLE = [tuple(line.split()) for line in LAYOUT.splitlines()
         if line.strip() and not line.lstrip().startswith("#")]
for _row in TABLE:
    assert len(_row) == 3 and _row[1] in RANK, _row

# Files of the verbs module that are in the library, linked with the
# in-memory fabric too: no libibverbs in them.
VERBS_IN_LIB = ("verbs_common.c", "verbs_devlist.c")

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
NM_GLOBAL = set("TDBRCGS")


def place(rel):
    """(layer, module) of a path relative to the top, or None."""
    for pattern, layer, module in TABLE:
        if fnmatch.fnmatchcase(rel, pattern):
            return layer, module
    return None


def where(rel):
    p = place(rel)
    return "%s/%s" % p if p else "?"


def sources(top):
    """The files under the rules, relative to top, sorted."""
    out = []
    for d, pats in (("src", ("*.c", "*.h")), ("include", ("*.h",)),
                    ("include/rdmapush", ("*.h",))):
        full = os.path.join(top, d)
        if not os.path.isdir(full):
            continue
        for name in sorted(os.listdir(full)):
            if any(fnmatch.fnmatchcase(name, p) for p in pats):
                out.append(d + "/" + name)
    return out


def resolve(top, rel, name):
    """The tree file an #include "name" in rel means, or None (config.h,
    anything generated or outside the tree)."""
    for cand in (os.path.join(os.path.dirname(rel), name),
                 os.path.join("include", name)):
        cand = os.path.normpath(cand)
        if os.path.isfile(os.path.join(top, cand)):
            return cand
    return None


def cycles(edges):
    """Strongly connected groups of more than one node in edges, a dict
    node -> set of nodes (Tarjan's algorithm, iterative)."""
    nodes = set(edges)
    for v in edges.values():
        nodes |= v
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    out.append(sorted(group))
    return sorted(out)


def shortest_cycle(graph, members):
    """One shortest cycle through the first of members, as a list of
    nodes that starts and ends with it (breadth-first, inside members)."""
    start = min(members)
    prev = {}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if len(path) > 1 \
                    else [start, start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


class Checker:
    def __init__(self, top, build, allow_file):
        self.top = top
        self.build = build
        self.fails = 0
        self.allowed = 0
        self.allow = {}     # (rule, file, symbol) -> line number
        self.used = set()
        self.allow_file = allow_file
        if allow_file and os.path.isfile(allow_file):
            with open(allow_file) as f:
                for n, line in enumerate(f, 1):
                    line = line.split("#", 1)[0].split()
                    if not line:
                        continue
                    if len(line) != 3:
                        print("layout: %s:%d: want 'rule file symbol'"
                              % (allow_file, n))
                        sys.exit(99)
                    self.allow[tuple(line)] = n

    def fail(self, key, text):
        """One violation: FAIL, unless key is allow-listed. Returns 1 (a
        violation, to count), and counts the allowed in self.allowed."""
        if key in self.allow:
            self.used.add(key)
            self.allowed += 1
            print("layout: allowed %s" % text)
            return 1
        print("layout: FAIL %s" % text)
        self.fails += 1
        return 1

    def counts(self, bad, noun):
        """"N noun[, M of them allow-listed]" for a rule's line."""
        allowed, self.allowed = self.allowed, 0
        text = "%d %s" % (bad, noun)
        return text + (", %d of them allow-listed" % allowed if allowed
                       else "")

    def rule_unplaced(self, files):
        n = 0
        for rel in files:
            if place(rel) is None:
                n += self.fail(("unplaced", rel, "-"),
                               "%s: in no layer; add it to LAYOUT in "
                               "tests/layout.py" % rel)
        print("layout: rule unplaced: every file in a layer (%d files, "
              "%s)" % (len(files), self.counts(n, "unplaced")))

    def rule_op(self, files):
        """The data op lives in its files: RP_OP_WRITE/READ/SEND are named
        only by the op files, the ops table, option parsing and the name
        table (OP_FILES)."""
        n = bad = 0
        for rel in files:
            if not rel.startswith("src/") or not rel.endswith(".c"):
                continue
            if any(fnmatch.fnmatchcase(rel, g) for g in OP_FILES):
                continue
            n += 1
            for num, line in self.lines(rel):
                m = OP_RE.search(line)
                if m:
                    bad += self.fail(("op", rel, m.group(0)),
                                     "%s:%d names %s: a data op's code "
                                     "belongs in src/session_op_*.c"
                                     % (rel, num, m.group(0)))
        print("layout: rule op: RP_OP_* only in the op files (%d other "
              "files checked, %s)" % (n, self.counts(bad, "bad")))

    def rule_verbs_h(self, files):
        n = bad = 0
        for rel in files:
            name = os.path.basename(rel)
            if rel.startswith("src/") and name not in VERBS_IN_LIB and \
                    (fnmatch.fnmatchcase(name, "verbs*.c") or
                     name == "verbs_int.h"):
                continue
            n += 1
            for num, line in self.lines(rel):
                m = INCLUDE_RE.match(line)
                if m and m.group(2) == "infiniband/verbs.h":
                    bad += self.fail(("verbs-h", rel, "infiniband/verbs.h"),
                                     "%s:%d includes <infiniband/verbs.h>; "
                                     "only src/verbs*.c (not %s) may"
                                     % (rel, num, ", ".join(VERBS_IN_LIB)))
        print("layout: rule verbs-h: <infiniband/verbs.h> only in "
              "src/verbs*.c (%d other files checked, %s)"
              % (n, self.counts(bad, "bad")))

    def lines(self, rel):
        with open(os.path.join(self.top, rel), errors="replace") as f:
            return list(enumerate(f, 1))

    def rule_lines(self, files):
        n = over = 0
        for rel in files:
            if not rel.endswith(".c"):
                continue
            n += 1
            count = len(self.lines(rel))
            if count > MAX_LINES:
                over += 1
                print("layout: WARNING %s has %d lines (over %d): split it "
                      "if it tells two stories" % (rel, count, MAX_LINES))
        print("layout: rule lines: src/*.c over %d lines is a warning "
              "(%d files, %d over)" % (MAX_LINES, n, over))

    def module_cycles(self, rule, edges, what):
        """edges: (module, module) -> [evidence]; one FAIL per group of
        modules in a cycle, showing one shortest cycle with its evidence."""
        graph = {}
        for (a, b) in edges:
            graph.setdefault(a, set()).add(b)
        bad = 0
        groups = cycles(graph)
        for group in groups:
            path = shortest_cycle(graph, set(group))
            steps = ["%s->%s (%s)" % (a, b, edges[(a, b)][0])
                     for a, b in zip(path, path[1:])]
            bad += self.fail((rule, ",".join(group), "-"),
                             "%s cycle between modules %s: %s"
                             % (what, ", ".join(group), "; ".join(steps)))
        return len(graph), bad

    def rule_includes(self, files):
        n = bad = 0
        edges = {}
        for rel in files:
            src = place(rel)
            if src is None:
                continue
            for num, line in self.lines(rel):
                m = INCLUDE_RE.match(line)
                if not m or m.group(1) != '"':
                    continue
                dst_rel = resolve(self.top, rel, m.group(2))
                dst = place(dst_rel) if dst_rel else None
                if dst is None:
                    continue
                n += 1
                if dst[1] != src[1]:
                    edges.setdefault((src[1], dst[1]), []).append(
                        "%s:%d" % (rel, num))
                if RANK[dst[0]] > RANK[src[0]]:
                    bad += self.fail(("include", rel, dst_rel),
                                     "%s:%d (%s/%s) includes %s (%s/%s): "
                                     "upward include"
                                     % (rel, num, src[0], src[1], dst_rel,
                                        dst[0], dst[1]))
        print("layout: rule include: no upward include (%d includes, "
              "%s)" % (n, self.counts(bad, "upward")))
        nmod, bad = self.module_cycles("include-cycle", edges, "include")
        print("layout: rule include-cycle: no cycle between modules "
              "(%d modules include others, %s)"
              % (nmod, self.counts(bad, "cycles")))

    def objects(self):
        """stem -> [object paths] under BUILD/src (libtool's .libs too)."""
        objs = {}
        base = os.path.join(self.build, "src")
        for d, _dirs, names in os.walk(base):
            for name in names:
                if name.endswith(".o"):
                    # automake names per-target objects TARGET-STEM.o
                    stem = name[:-2].rsplit("-", 1)[-1]
                    objs.setdefault(stem, []).append(os.path.join(d, name))
        return objs

    def nm(self, path):
        try:
            out = subprocess.run(["nm", path], check=True,
                                 stdout=subprocess.PIPE,
                                 universal_newlines=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            print("layout: nm %s: %s" % (path, e))
            sys.exit(99)
        undef, defined = set(), set()
        for line in out.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == "U":
                undef.add(p[1])
            elif len(p) == 3 and p[1] in NM_GLOBAL:
                defined.add(p[2])
        return undef, defined

    def rule_calls(self):
        objs = self.objects()
        files = {}
        for stem, paths in sorted(objs.items()):
            rel = "src/%s.c" % stem
            if not os.path.isfile(os.path.join(self.top, rel)):
                print("layout: note: %s: no %s (a stale object?), skipped"
                      % (paths[0], rel))
                continue
            files[rel] = paths
        if not files:
            print("layout: rule call: no object files under %s/src: the "
                  "call, call-cycle and prefix rules are not checked "
                  "(run after make)" % self.build)
            return False
        undef, defined, owner = {}, {}, {}
        for rel, paths in files.items():
            undef[rel], defined[rel] = set(), set()
            for path in paths:
                u, d = self.nm(path)
                undef[rel] |= u
                defined[rel] |= d
            for sym in defined[rel]:
                owner.setdefault(sym, rel)
        n = bad = 0
        edges = {}
        for rel in sorted(files):
            src = place(rel)
            if src is None:
                continue
            calls = {}
            for sym in undef[rel]:
                dst_rel = owner.get(sym)
                if dst_rel and dst_rel != rel:
                    calls.setdefault(dst_rel, []).append(sym)
            for dst_rel, syms in sorted(calls.items()):
                dst = place(dst_rel)
                if dst is None:
                    continue
                n += 1
                if dst[1] != src[1]:
                    edges.setdefault((src[1], dst[1]), []).append(
                        "%s->%s" % (rel, dst_rel))
                if RANK[dst[0]] <= RANK[src[0]]:
                    continue
                for sym in sorted(syms):
                    bad += self.fail(("call", rel, sym),
                                     "%s (%s/%s) calls %s in %s (%s/%s): "
                                     "upward call"
                                     % (rel, src[0], src[1], sym, dst_rel,
                                        dst[0], dst[1]))
        print("layout: rule call: no upward call (%d objects, %d file->file "
              "links, %s)" % (len(files), n, self.counts(bad, "upward calls")))
        nmod, bad = self.module_cycles("call-cycle", edges, "call")
        print("layout: rule call-cycle: no cycle between modules "
              "(%d modules call others, %s)"
              % (nmod, self.counts(bad, "cycles")))
        n = bad = 0
        for rel in sorted(files):
            for sym in sorted(defined[rel]):
                # "__" names are the implementation's (a sanitizer's
                # __odr_asan.*, for one): C reserves them, code never
                # defines them.
                if sym.startswith("__"):
                    continue
                n += 1
                if sym.startswith("rp_") or sym == "main":
                    continue
                bad += self.fail(("prefix", rel, sym),
                                 "%s defines global %s without the rp_ "
                                 "prefix" % (rel, sym))
        print("layout: rule prefix: global symbols start with rp_ (%d "
              "symbols, %s)" % (n, self.counts(bad, "without")))
        return True

    def run(self):
        files = sources(self.top)
        if not files:
            print("layout: no src/*.c under %s (set srcdir)" % self.top)
            return 99
        self.rule_unplaced(files)
        self.rule_verbs_h(files)
        self.rule_op(files)
        self.rule_includes(files)
        checked_calls = self.rule_calls()
        self.rule_lines(files)
        for key, num in sorted(self.allow.items(), key=lambda kv: kv[1]):
            if key in self.used:
                continue
            if not checked_calls and key[0] in ("call", "call-cycle",
                                                 "prefix"):
                continue
            print("layout: WARNING %s:%d: allow-listed '%s' no longer "
                  "occurs: remove it" % (self.allow_file, num, " ".join(key)))
        if self.allow:
            print("layout: %d allow-listed items (%s)" %
                  (len(self.allow), self.allow_file))
        if self.fails:
            print("layout: FAILED (%d)" % self.fails)
            return 1
        print("layout: ok")
        return 0


def selftest(top, allow_file):
    """The checker passes on a copy of src/ and include/, and fails with
    the right message on each planted violation: in the includes of the
    copy, and in small objects compiled for the call and prefix rules
    (named as automake names them, TARGET-STEM.o, for files of the copy)."""
    me = os.path.abspath(__file__)
    cc = os.environ.get("CC") or "cc"
    ok = True

    def check(name, plant, want_rc, want, objects=()):
        nonlocal ok
        with tempfile.TemporaryDirectory(prefix="layout-selftest.") as tmp:
            for d in ("src", "include"):
                shutil.copytree(os.path.join(top, d), os.path.join(tmp, d))
            if plant:
                rel, text = plant
                with open(os.path.join(tmp, rel), "a") as f:
                    f.write(text)
            # Without objects, the include rules alone.
            build = os.path.join(tmp, "build")
            os.makedirs(os.path.join(build, "src"))
            for stem, code in objects:
                obj = os.path.join(build, "src", "t-%s.o" % stem)
                subprocess.run(cc.split() + ["-c", "-x", "c", "-", "-o", obj],
                               input=code, universal_newlines=True,
                               check=True)
            r = subprocess.run([sys.executable, me, "--top", tmp,
                                "--build", build, "--allow", allow_file],
                               stdout=subprocess.PIPE,
                               universal_newlines=True)
        lines = r.stdout.splitlines()
        fails = [l for l in lines if l.startswith("layout: FAIL ")]
        good = r.returncode == want_rc and all(
            any(re.search(w, l) for l in fails) for w in want)
        if want_rc == 0:
            good = good and not fails
        print("layout: selftest %s: %s (exit %d, %d FAIL lines)"
              % ("ok" if good else "WRONG", name, r.returncode, len(fails)))
        if not good:
            ok = False
            for l in lines:
                print("    " + l)

    check("unmodified copy passes", None, 0, [])
    check("upward include fails",
          ("src/proto.c", '\n#include "rdmapush/session.h"\n'), 1,
          [r"^layout: FAIL src/proto\.c:\d+ \(services/codec\) includes "
           r"include/rdmapush/session\.h \(session/session\): upward"])
    # ctrl.h includes proto.h: codec including channel closes a cycle
    # between two modules of one layer (no upward include involved).
    check("include cycle fails",
          ("src/proto_status.c", '\n#include "rdmapush/ctrl.h"\n'), 1,
          [r"^layout: FAIL include cycle between modules [a-z, ]*channel, codec[a-z, ]*: "
           r".*src/proto_status\.c:\d+"])
    check("a data op named outside its files fails",
          ("src/session_send.c", "\nint zz = RP_OP_READ;\n"), 1,
          [r"^layout: FAIL src/session_send\.c:\d+ names RP_OP_READ"])
    check("a file in no layer fails",
          ("src/zz_planted.c", "/* planted */\n"), 1,
          [r"^layout: FAIL src/zz_planted\.c: in no layer"])
    check("<infiniband/verbs.h> outside verbs*.c fails",
          ("src/walk.c", "\n#include <infiniband/verbs.h>\n"), 1,
          [r"^layout: FAIL src/walk\.c:\d+ includes <infiniband/verbs\.h>"])
    session_calls_proto = (
        "session", "void rp_proto_x(void); void rp_session_x(void);\n"
        "void rp_session_x(void) { rp_proto_x(); }\n")
    check("objects calling downward pass", None, 0, [],
          [session_calls_proto,
           ("proto", "void rp_proto_x(void); void rp_proto_x(void) {}\n")])
    check("upward call, call cycle and unprefixed global fail", None, 1,
          [r"^layout: FAIL src/proto\.c \(services/codec\) calls "
           r"rp_session_x in src/session\.c \(session/session\): upward",
           r"^layout: FAIL call cycle between modules codec, session: ",
           r"^layout: FAIL src/walk\.c defines global walk_x without the "
           r"rp_ prefix"],
          [session_calls_proto,
           ("proto", "void rp_session_x(void); void rp_proto_x(void);\n"
            "void rp_proto_x(void) { rp_session_x(); }\n"),
           ("walk", "int walk_x; int main(void) { return walk_x; }\n")])
    print("layout: selftest %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--top", default=os.path.dirname(here))
    ap.add_argument("--build", default=".")
    ap.add_argument("--allow", default=None)
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    allow = os.path.normpath(a.allow or
                             os.path.join(a.top, "tests", "layout.allow"))
    if a.selftest:
        return selftest(a.top, allow)
    return Checker(a.top, a.build, allow).run()


if __name__ == "__main__":
    sys.exit(main())
