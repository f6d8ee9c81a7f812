/* SPDX-License-Identifier: MIT */
/* For unit tests: what the code under test writes to stderr, read back. */
#ifndef RDMAPUSH_TEST_CAPTURE_H
#define RDMAPUSH_TEST_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

/* Include after <cmocka.h>. */

static FILE *capture_tmp;
static int capture_saved = -1;
static char capture_text[4096];

/* stderr into a temporary file until capture_end(). */
static void capture_start(void)
{
	capture_tmp = tmpfile();
	assert_non_null(capture_tmp);
	capture_saved = dup(STDERR_FILENO);
	assert_true(capture_saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(capture_tmp), STDERR_FILENO) >= 0);
}

/* What was written so far (children too), without ending the capture. */
static inline const char *capture_peek(void)
{
	ssize_t n;

	fflush(stderr);
	n = pread(fileno(capture_tmp), capture_text, sizeof(capture_text) - 1,
		  0);
	capture_text[n > 0 ? n : 0] = '\0';
	return capture_text;
}

/* stderr back; what was written meanwhile (NUL-terminated, cut at 4 KiB). */
static const char *capture_end(void)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(capture_saved, STDERR_FILENO) >= 0);
	close(capture_saved);
	capture_saved = -1;
	rewind(capture_tmp);
	n = fread(capture_text, 1, sizeof(capture_text) - 1, capture_tmp);
	capture_text[n] = '\0';
	fclose(capture_tmp);
	capture_tmp = NULL;
	return capture_text;
}

#endif
