/* SPDX-License-Identifier: MIT */
/*
 * RP_EXPORT: the public API, as rdmapush.h defines it (the same tokens),
 * for a public function declared again in an internal header.
 * RP_TOOL: an internal function the rdmapush tool calls in librdmapush.so.
 * The library is built with -fvisibility=hidden: only the public API
 * (rdmapush.h's RP_EXPORT) and these are exported. They are the tool's,
 * not an interface: undeclared in rdmapush.h, listed apart in
 * tests/lib/symbols-tool.txt, changed freely with the tool that ships
 * with the same library (docs/library.md).
 */
#ifndef RDMAPUSH_EXPORT_H
#define RDMAPUSH_EXPORT_H

#define RP_EXPORT __attribute__((visibility("default")))
#define RP_TOOL __attribute__((visibility("default")))

#endif
