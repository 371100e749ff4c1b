/* SPDX-License-Identifier: MIT */
/* Writing a report file, or standard output for "-" (check, gate, diff). */
#include <errno.h>
#include <string.h>

#include "cli.h"

int cli_write_report(const char *what, const char *path, int (*write)(const void *ctx, FILE *out), const void *ctx)
{
	bool to_stdout = strcmp(path, "-") == 0;
	FILE *f = to_stdout ? stdout : fopen(path, "w");
	if (!f) {
		cli_error("cannot write the %s report %s: %s", what, path, strerror(errno));
		return -1;
	}
	int rc = write(ctx, f);
	int saved = errno;
	/* A full disk shows only at the flush: it counts as a failed write too. */
	if (to_stdout ? fflush(f) != 0 : fclose(f) != 0) {
		saved = errno;
		rc = -1;
	}
	if (rc != 0) {
		cli_error("writing the %s report %s failed: %s", what, to_stdout ? "to standard output" : path,
			  strerror(saved));
		return -1;
	}
	return 0;
}
