/*
 * Bulk lookups of the C reader (readers/c/), timed: compiled and run by
 * bench_c_reader.py. Usage: c4book_bulk BOOK POSITIONS REPEAT
 * POSITIONS: pairs of native uint64 (first, mask). Prints one line of JSON: the best
 * CPU seconds of REPEAT passes over every position, the positions, and a checksum of
 * the answers (statuses and values) so that two books can be compared.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "c4book.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: c4book_bulk BOOK POSITIONS REPEAT\n");
        return 2;
    }
    c4book book;
    char err[512];
    if (c4book_open(&book, argv[1], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    FILE *fh = fopen(argv[2], "rb");
    if (!fh) {
        fprintf(stderr, "%s: cannot open\n", argv[2]);
        return 1;
    }
    fseek(fh, 0, SEEK_END);
    long bytes = ftell(fh);
    rewind(fh);
    size_t n = (size_t)bytes / 16;
    uint64_t *pos = malloc(16 * (n ? n : 1));
    if (!pos || fread(pos, 16, n, fh) != n) {
        fprintf(stderr, "%s: cannot read\n", argv[2]);
        return 1;
    }
    fclose(fh);
    int repeat = atoi(argv[3]);
    double best = 1e300;
    uint64_t checksum = 0;
    for (int r = 0; r < repeat; r++) {
        uint64_t sum = 0;
        clock_t start = clock();
        for (size_t i = 0; i < n; i++) {
            int v = 0;
            int s = c4book_lookup(&book, pos[2 * i], pos[2 * i + 1], &v);
            sum = sum * 31 + (uint64_t)(s * 256 + (v & 255));
        }
        double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
        if (seconds < best)
            best = seconds;
        checksum = sum;
    }
    printf("{\"positions\": %zu, \"cpu_seconds\": %.6f, \"checksum\": %llu}\n", n, best,
           (unsigned long long)checksum);
    c4book_close(&book);
    free(pos);
    return 0;
}
