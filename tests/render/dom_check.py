#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/render/chromium.sh: the DOM that `chromium --dump-dom` printed for
# an SVG file is the SVG (no <parsererror>: Chromium's XML parser took it
# whole) and its <text> elements hold each wanted string.
# usage: dom_check.py DOM 'STRING1|STRING2|...'   exit 0, or 1 saying why
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main():
    raw = open(sys.argv[1], encoding="utf-8").read()
    if "parsererror" in raw:
        print("Chromium reports an XML error: %s" % raw[:400])
        return 1
    if not raw.lstrip().startswith("<svg"):
        print("the document is not the SVG: %r" % raw[:200])
        return 1
    root = ET.fromstring(raw)
    texts = [t.text or "" for t in root.iter(NS + "text")]
    missing = [w for w in sys.argv[2].split("|")
               if not any(w in t for t in texts)]
    if missing:
        print("texts not in Chromium's DOM: %s" % missing)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
