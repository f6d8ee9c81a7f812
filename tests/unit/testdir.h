/* SPDX-License-Identifier: MIT */
/*
 * What the in-process session tests share about their scratch trees and
 * descriptors: how many descriptors are open (a case must release all it
 * opened), and removing a tree. Include after <cmocka.h>.
 */
#ifndef RDMAPUSH_TESTS_TESTDIR_H
#define RDMAPUSH_TESTS_TESTDIR_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Descriptors open in this process now. */
static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the DIR's own */
}

/* dir and everything in it (a test's own scratch tree: no symlink is
 * followed, d_type DT_DIR only). */
static inline void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(p))
			continue;	/* not one of ours */
		if (e->d_type == DT_DIR)
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

#endif
