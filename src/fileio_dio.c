// SPDX-License-Identifier: MIT
/* --direct: O_DIRECT file data where the file system takes it, the unit
 * it needs, the one note when it cannot, the source's direct reads and
 * the destination's direct descriptor. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "rdmapush/fileio.h"
#include "rdmapush/trace.h"
#include "fileio_int.h"

/* Room for a why: a shown name and a sentence about it. */
#define WHY_MAX		(RP_PEER_TEXT_MAX + 160)

/*
 * The ring's slots and the workers' buffers are aligned to a page, and a
 * unit of at least a page never leaves one page written both past the
 * cache and through it.
 */
static uint32_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (uint32_t)page : 4096;
}

void rp_fileio_dio_off(struct rp_dio *dio, const char *fmt, ...)
{
	char why[WHY_MAX];
	va_list ap;

	dio->on = false;
	if (dio->noted)
		return;
	dio->noted = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	RP_INFO("note: --direct: %s; the rest of this session goes through "
		"the page cache", why);
}

void rp_fileio_dio_init(struct rp_dio *dio, bool want, uint32_t chunk)
{
	uint32_t page = page_size();

	*dio = (struct rp_dio){ .on = want, .chunk = chunk };
	if (want && chunk % page)
		rp_fileio_dio_off(dio, "the chunk size, %u bytes, is not a "
				  "multiple of the page size (%u bytes)",
				  chunk, page);
}

/* The file system's name for a message: what refuses O_DIRECT most. */
static const char *fs_name(int fd, char *buf, size_t len)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} known[] = {
		{ TMPFS_MAGIC, "tmpfs" },     { RAMFS_MAGIC, "ramfs" },
		{ FUSE_SUPER_MAGIC, "FUSE" }, { NFS_SUPER_MAGIC, "NFS" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs" },
		{ EXT4_SUPER_MAGIC, "ext2/3/4" }, { XFS_SUPER_MAGIC, "XFS" },
		{ BTRFS_SUPER_MAGIC, "Btrfs" },
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return "its file system";
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if ((unsigned long)sf.f_type == known[i].magic)
			return known[i].name;
	snprintf(buf, len, "its file system (type 0x%lx)",
		 (unsigned long)sf.f_type);
	return buf;
}

/* Why O_DIRECT cannot be had, into why: fd's file system refuses it,
 * as detail shows. */
static void refused(char *why, size_t len, int fd, const char *detail)
{
	char fs[48];

	snprintf(why, len, "%s refuses O_DIRECT (%s)",
		 fs_name(fd, fs, sizeof(fs)), detail);
}

/* call failed with e: a refusal if EINVAL (what open(O_DIRECT) and
 * fcntl(F_SETFL) say then), else the error itself. */
static void call_failed(char *why, size_t len, int fd, const char *call,
			int e)
{
	char detail[96];

	snprintf(detail, sizeof(detail), "%s: %s", call, strerror(e));
	if (e == EINVAL)
		refused(why, len, fd, detail);
	else
		snprintf(why, len, "%s", detail);
}

/*
 * What statx (STATX_DIOALIGN, Linux 6.1) says of fd's file: raise *unit
 * to the alignment its direct I/O needs and return 0, or -1 when it says
 * the file takes none. Not said (an older kernel or file system): 0.
 */
static int statx_unit(int fd, uint32_t *unit)
{
#ifdef HAVE_STRUCT_STATX_STX_DIO_OFFSET_ALIGN
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) < 0 ||
	    !(sx.stx_mask & STATX_DIOALIGN))
		return 0;
	if (!sx.stx_dio_offset_align)
		return -1;
	if (sx.stx_dio_offset_align > *unit)
		*unit = sx.stx_dio_offset_align;
	if (sx.stx_dio_mem_align > *unit)
		*unit = sx.stx_dio_mem_align;
#else
	(void)fd;
	(void)unit;
#endif
	return 0;
}

/*
 * The O_DIRECT unit of fd's file for chunk-byte chunks: 0 and *unit, or
 * -1 and why. A page at least, more if statx asks for more, and the
 * chunk must be made of whole units.
 */
static int dio_unit(int fd, uint32_t chunk, uint32_t *unit, char *why,
		    size_t len)
{
	uint32_t u = page_size();

	if (getenv("RDMAPUSH_NO_DIRECT")) {
		refused(why, len, fd, "RDMAPUSH_NO_DIRECT is set");
		return -1;
	}
	if (statx_unit(fd, &u) < 0) {
		refused(why, len, fd, "statx: no direct I/O for this file");
		return -1;
	}
	if (chunk % u) {
		snprintf(why, len, "the chunk size, %u bytes, is not a "
			 "multiple of the file system's direct I/O unit (%u "
			 "bytes)", chunk, u);
		return -1;
	}
	*unit = u;
	return 0;
}

/* O_DIRECT on or off on fd's open file (every thread's reads of it).
 * 0, or -1 with errno set. */
static int set_direct(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? flags | O_DIRECT : flags & ~O_DIRECT);
}

void rp_fileio_src_direct(struct rp_src *s, const char *path,
			  struct rp_dio *dio)
{
	char why[WHY_MAX];
	uint32_t unit;
	int e;

	if (!dio->on || s->fd < 0)
		return;
	if (dio_unit(s->fd, dio->chunk, &unit, why, sizeof(why)) == 0) {
		/* fcntl makes the check open(O_DIRECT) makes, on the file
		 * we hold: it cannot have been replaced meanwhile. */
		if (set_direct(s->fd, true) == 0) {
			s->align = unit;
			RP_EV("file", "file.direct", "{path}: read with "
			      "O_DIRECT, in units of {unit} bytes",
			      EV_S("path", path), EV_U("unit", unit),
			      EV_S("io", "read"));
			return;
		}
		e = errno;
		call_failed(why, sizeof(why), s->fd, "fcntl(F_SETFL, O_DIRECT)",
			    e);
	}
	rp_fileio_dio_off(dio, "%s: %s", path, why);
}

int rp_fileio_direct_off(int fd)
{
	return set_direct(fd, false);
}

void rp_fileio_dst_direct(struct rp_dst *d, struct rp_dio *dio)
{
	char why[WHY_MAX];
	char proc[32];
	uint32_t unit;
	int fd, e;

	if (!dio->on || d->fd < 0)
		return;
	if (dio_unit(d->fd, dio->chunk, &unit, why, sizeof(why)) == 0) {
		/*
		 * A second open file of the same inode, O_DIRECT on it
		 * alone: fcntl(F_SETFL) on d->fd would flip the flag under
		 * the workers writing other chunks, the buffered tail among
		 * them. An O_TMPFILE has no name: /proc/self/fd reopens it.
		 */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", d->fd);
		fd = open(proc, O_WRONLY | O_DIRECT | O_CLOEXEC);
		if (fd >= 0) {
			d->dfd = fd;
			d->align = unit;
			d->dio = dio;
			RP_EV("file", "file.direct", "{path}: written with "
			      "O_DIRECT in units of {unit} bytes, a partial "
			      "last unit through the page cache",
			      EV_S("path", d->shown), EV_U("unit", unit),
			      EV_S("io", "write"));
			return;
		}
		e = errno;
		call_failed(why, sizeof(why), d->fd, "open(O_DIRECT)", e);
	}
	rp_fileio_dio_off(dio, "%s: %s", d->shown, why);
}
