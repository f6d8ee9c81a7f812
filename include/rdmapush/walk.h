/* SPDX-License-Identifier: MIT */
/*
 * The sender's source walker: the SOURCE arguments of `rdmapush send`
 * (files, directories with -r, "-" for standard input) as one ordered
 * stream of entries, each with the path it gets on the receiver. Trees
 * are walked with fts(3), pre-order, names sorted by strcmp so the order
 * is deterministic; symlinks inside a tree are never followed, a symlink
 * given on the command line is (as scp does). No file is opened by the
 * walk and no name is checked against the receiver's rules: the session
 * does both, a tree's files with rp_walk_src_open().
 */
#ifndef RDMAPUSH_WALK_H
#define RDMAPUSH_WALK_H

#include <stdbool.h>
#include <stdint.h>

struct rp_src;

enum rp_walk_kind {
	RP_WALK_FILE,	/* regular file: rp_walk_src_open() */
	RP_WALK_DIR,	/* directory, before anything inside it (pre-order) */
	RP_WALK_STDIN,	/* the source "-": standard input */
	RP_WALK_SKIP,	/* not sent (symlink, FIFO, socket, device): e->why */
	RP_WALK_ERROR,	/* cannot be sent: e->why, e->err; already reported */
	RP_WALK_KIND_MAX
};

/* "file", "dir", "stdin", "skip", "error" (for traces). */
const char *rp_walk_kind_name(enum rp_walk_kind k);

struct rp_walk_entry {
	enum rp_walk_kind kind;
	/*
	 * Local path, for open and messages. For FILE its last component is
	 * not a symlink when walked (a symlink given on the command line is
	 * replaced by its realpath), so it can be opened with O_NOFOLLOW.
	 */
	const char *src;
	/*
	 * FILE and DIR inside a tree: src beneath the tree's top directory,
	 * which the walk holds open ("" for the top itself; see
	 * rp_walk_src_open). NULL otherwise.
	 */
	const char *rel;
	/* Path on the receiver: relative, '/'-separated, at most
	 * RP_PATH_MAX bytes. NULL for an ERROR about a command-line source
	 * (missing, a directory without -r, "/") or a path too long. */
	const char *path;
	uint32_t mode;		/* st_mode & 07777 (STDIN: 0666) */
	uint64_t size;		/* FILE: st_size; others 0 */
	int64_t mtime_sec;	/* st_mtim (STDIN: now) */
	uint32_t mtime_nsec;
	/* SKIP: "symbolic link", "FIFO", "socket", "device";
	 * ERROR: "directory (use -r)", "path too long", strerror()... */
	const char *why;
	int err;		/* ERROR: -errno or an RP_E* code */
};

struct rp_walk;

/*
 * Start a walk over sources[0..n): paths or "-" (borrowed: they must
 * outlive the walk). as_name is --as or NULL: valid only with n == 1, it
 * renames that one source (the file, the top directory, or standard
 * input, which requires it). Returns 0, RP_EUSAGE (reported: no source,
 * "-" without --as, "-" twice, --as with several sources, --as that is
 * not a plain name per rp_fileio_check_name) or -ENOMEM (reported).
 */
int rp_walk_open(struct rp_walk **w, char *const *sources, int n,
		 bool recursive, const char *as_name)
	__attribute__((warn_unused_result));

/*
 * The next entry into *e (its pointers are valid until the next call):
 * 1, 0 at the end, or a negative error only for failures that stop
 * everything (-ENOMEM, reported). A missing or unreadable source, or a
 * directory given without -r, is ONE ERROR entry (reported, naming the
 * source and the cause) and the walk goes on with the next source; so is
 * a directory inside a tree that cannot be read or a file that cannot be
 * stat'ed. Post-order directory visits are not returned.
 */
int rp_walk_next(struct rp_walk *w, struct rp_walk_entry *e)
	__attribute__((warn_unused_result));

/*
 * Bytes the regular files of a walk over the same arguments hold now
 * (for progress and the ring's shape), into *total, and how many there
 * are, into *files; *total is UINT64_MAX (RP_SIZE_UNKNOWN) when standard
 * input is one of them. A count, not a walk: unsorted, each name looked
 * up in the directory held (links inside a tree not followed, more than
 * 256 levels down not counted), and quiet: the real walk reports what
 * cannot be sent. 0, or RP_EUSAGE (reported) as rp_walk_open.
 */
int rp_walk_total(char *const *sources, int n, bool recursive,
		  const char *as_name, uint64_t *total, uint64_t *files)
	__attribute__((warn_unused_result));

/*
 * Before anything remote: whether at least one source can be sent, by
 * the same checks as rp_walk_next's for each source's top (exists, a
 * directory only with -r, readable, a regular file, a directory or
 * standard input). 0 if one can (nothing is reported: the real walk
 * reports the others), RP_EUSAGE if none can (each one's cause
 * reported as "cannot send SRC: why", a FIFO or a device too), or as
 * rp_walk_open, or -ENOMEM.
 * Trees are not walked (only a top directory's names are read), and no
 * file is opened.
 */
int rp_walk_check(char *const *sources, int n, bool recursive,
		  const char *as_name) __attribute__((warn_unused_result));

/*
 * Open FILE entry e, the last rp_walk_next() gave, for reading into s. A
 * file inside a tree is opened from the tree's top directory down (held
 * since before the walk listed anything), one level at a time without
 * following a symlink: a directory swapped for a link since the walk
 * listed it is refused (-ELOOP, reported), so nothing outside the named
 * sources is read. A directory is opened so at its first file, and the
 * files after it in the same directory come from the directory opened
 * (as the tree's come from the top held), a swap since not seen. A
 * source named on the command line is opened by its path, as the walk
 * resolved it. s->size, mode and mtime are the opened file's. 0 or as
 * rp_fileio_src_open().
 */
int rp_walk_src_open(struct rp_walk *w, const struct rp_walk_entry *e,
		     struct rp_src *s) __attribute__((warn_unused_result));

/*
 * For DIR entry e, the last rp_walk_next() gave: look at it again from
 * the tree's top down as rp_walk_src_open() does, and set e's mode and
 * mtime from what is there now. A directory swapped for a symlink (or
 * anything else) since the walk listed it is refused (-ELOOP or
 * -ENOTDIR, reported, one line) and nothing inside it is walked. 0 or
 * -errno.
 */
int rp_walk_dir_recheck(struct rp_walk *w, struct rp_walk_entry *e)
	__attribute__((warn_unused_result));

/* Free the walk; NULL is fine. */
void rp_walk_close(struct rp_walk *w);

#endif
