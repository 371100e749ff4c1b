/* SPDX-License-Identifier: MIT */
/*
 * bench-zlib-crc32: the baseline of `make bench`. Reads a file with large
 * buffered reads and runs zlib's crc32() over every byte of it: what a plain
 * "CRC the whole capture" pass costs, without parsing anything.
 *
 * usage: bench-zlib-crc32 FILE
 * prints: "<bytes> bytes <seconds> s crc32 0x<crc>" (seconds: its own
 * monotonic clock, from open to the last byte). Exit 2 on any error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define CHUNK (4u << 20)	/* 4 MiB reads: few syscalls, stays in L2/L3-friendly pieces */

int main(int argc, char **argv)
{
	if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs("usage: bench-zlib-crc32 FILE\n"
		      "Runs zlib crc32() over every byte of FILE and prints the bytes, the seconds and the CRC.\n",
		      argc == 2 ? stdout : stderr);
		return argc == 2 ? 0 : 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "bench-zlib-crc32: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	unsigned char *buf = malloc(CHUNK);
	if (!buf) {
		fputs("bench-zlib-crc32: out of memory\n", stderr);
		return 2;
	}
	uLong crc = crc32(0L, Z_NULL, 0);
	uint64_t total = 0;
	for (;;) {
		ssize_t n = read(fd, buf, CHUNK);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "bench-zlib-crc32: %s: %s\n", argv[1], strerror(errno));
			return 2;
		}
		if (n == 0)
			break;
		crc = crc32(crc, buf, (uInt)n);
		total += (uint64_t)n;
	}
	close(fd);
	free(buf);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("%" PRIu64 " bytes %.6f s crc32 0x%08lx\n", total, s, (unsigned long)crc);
	return 0;
}
