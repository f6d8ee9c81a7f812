/* SPDX-License-Identifier: MIT */
/*
 * RP_EXPORT: the public API, as rdmapush.h defines it (the same tokens),
 * for a public function declared again in an internal header.
 * The library is built with -fvisibility=hidden: only the public API
 * (rdmapush.h's RP_EXPORT) is exported (tests/lib/symbols.txt).
 */
#ifndef RDMAPUSH_EXPORT_H
#define RDMAPUSH_EXPORT_H

#define RP_EXPORT __attribute__((visibility("default")))

#endif
