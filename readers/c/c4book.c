/*
 * c4book: reference reader of the compact book format (see c4book.h and
 * docs/FORMATS.md, "The compact book format"). Plain C99.
 */
#include "c4book.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 7
#define HEIGHT 6
#define H1 (HEIGHT + 1)
#define FIXED_HEADER 64

static const unsigned char MAGIC[8] = {'C', '4', 'B', 'O', 'O', 'K', 0x1a, '\n'};

static uint64_t rd_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* CRC-32 (zlib's): continue `crc` (0 to start) over n bytes */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}

/* The board after 1-based column digits ("4453"); -1 for a bad digit or a full column. */
static int moves_to_board(const char *moves, uint64_t *first, uint64_t *mask)
{
    *first = *mask = 0;
    int n = 0;
    for (const char *p = moves; *p; p++, n++) {
        int col = *p - '1';
        if (col < 0 || col >= WIDTH)
            return -1;
        uint64_t column = 0x3Full << (col * H1);
        uint64_t cell = (*mask + (1ull << (col * H1))) & column & ~*mask; /* lowest empty cell */
        if (!cell)
            return -1; /* the column is full */
        *mask |= cell;
        if (n % 2 == 0)
            *first |= cell;
    }
    return 0;
}

static int has_four(uint64_t s);

/* Can `v` be a value of this kind at `plies` stones? (FORMATS.md, "Values") */
static int value_in_range(int kind, int plies, int v)
{
    int room = WIDTH * HEIGHT - plies; /* plies left to play */
    int half = WIDTH * HEIGHT / 2;
    if (kind == C4BOOK_KIND_WDL)
        return v >= -1 && v <= 1;
    if (kind == C4BOOK_KIND_DISTANCE) {
        int d = v > 0 ? 100 - v : 100 + v;
        return v == 0 || (abs(v) >= 58 && d >= 1 && d <= room);
    }
    /* score: at best a win with the mover's next stone, at worst a loss to the opponent's */
    return v <= half - plies / 2 && v >= -(half - (plies + 1) / 2);
}

int c4book_open(c4book *book, const char *path, char *err, size_t errlen)
{
    memset(book, 0, sizeof *book);
    FILE *fh = fopen(path, "rb");
    if (!fh)
        return fail(err, errlen, path, "cannot open the file");
    if (fseek(fh, 0, SEEK_END) != 0) {
        fclose(fh);
        return fail(err, errlen, path, "cannot seek");
    }
    long size = ftell(fh);
    rewind(fh);
    if (size < FIXED_HEADER) {
        fclose(fh);
        return fail(err, errlen, path, "not a compact book (too short)");
    }
    unsigned char *d = malloc((size_t)size);
    if (!d) {
        fclose(fh);
        return fail(err, errlen, path, "out of memory");
    }
    size_t got = fread(d, 1, (size_t)size, fh);
    fclose(fh);
    book->data = d;
    book->size = (size_t)size;
    if (got != (size_t)size) {
        c4book_close(book);
        return fail(err, errlen, path, "short read");
    }
    if (memcmp(d, MAGIC, 8) != 0) {
        c4book_close(book);
        return fail(err, errlen, path, "not a compact book (no magic)");
    }
    unsigned version = (unsigned)rd_le(d + 8, 2);
    int width = d[10], height = d[11];
    book->plies = d[12];
    book->kind = d[13];
    book->structure = d[14];
    book->value_bits = d[15];
    book->positions = rd_le(d + 16, 8);
    book->seed = rd_le(d + 24, 8);
    book->segment_length = (uint32_t)rd_le(d + 32, 4);
    book->segment_count = (uint32_t)rd_le(d + 36, 4);
    uint32_t crc = (uint32_t)rd_le(d + 40, 4);
    uint64_t header_bytes = rd_le(d + 44, 4);
    uint64_t payload_bytes = rd_le(d + 48, 8);
    book->value_count = d[56];
    int scope_len = d[57];
    unsigned reserved = (unsigned)rd_le(d + 58, 2);
    uint64_t meta_len = rd_le(d + 60, 4);
    const char *bad = NULL;
    if (version == 1)
        bad = "compact format version 1, whose header has no checksum (write the book again)";
    else if (version != 2)
        bad = "unsupported version (this reader knows version 2)";
    else if (width != WIDTH || height != HEIGHT)
        bad = "not a 7x6 book";
    else if (book->kind > 2 || book->structure > 1 || reserved)
        bad = "unknown value kind or structure";
    else if (book->value_bits < 1 || book->value_bits > 8 || book->value_count < 1 ||
             book->value_count > (1 << book->value_bits))
        bad = "bad value table size";
    else if (book->plies > WIDTH * HEIGHT || scope_len > 42)
        bad = "bad ply or scope length";
    else if (header_bytes != ((FIXED_HEADER + book->value_count + scope_len + meta_len + 7) / 8) * 8)
        bad = "bad header length";
    else if (header_bytes + payload_bytes != (uint64_t)size)
        bad = "file size does not match the header";
    if (!bad) {
        uint32_t L = book->segment_length;
        /* in 64 bits: S + 2 must not wrap around in 32 */
        uint64_t cells = (uint64_t)L * ((uint64_t)book->segment_count + 2);
        /* S * L <= 2^32, so that (h >> 32) * (S * L) fits in 64 bits */
        if (L < 4 || (L & (L - 1)) || L > 65536u || book->segment_count < 1 ||
            (uint64_t)L * book->segment_count > (1ull << 32))
            bad = "bad segment length or count";
        else if (payload_bytes != 8 * ((cells * (uint64_t)book->value_bits + 63) / 64 + 1))
            bad = "payload length does not match the table size";
        else if ((book->structure == 1) != (scope_len > 0))
            bad = "a scope line belongs to a scoped book, and only there";
    }
    if (bad) {
        c4book_close(book);
        return fail(err, errlen, path, bad);
    }
    for (int i = 0; i < book->value_count; i++) {
        book->values[i] = (signed char)d[FIXED_HEADER + i];
        if (i > 0 && book->values[i] <= book->values[i - 1])
            bad = "the value table is not strictly ascending";
        else if (!value_in_range(book->kind, book->plies, book->values[i]))
            bad = "bad value table (a value no game of the book's ply can have)";
        if (bad) {
            c4book_close(book);
            return fail(err, errlen, path, bad);
        }
    }
    memcpy(book->scope, d + FIXED_HEADER + book->value_count, (size_t)scope_len);
    book->scope[scope_len] = '\0';
    book->payload = d + header_bytes;
    if (book->structure == 1 &&
        (scope_len > book->plies || strlen(book->scope) != (size_t)scope_len ||
         moves_to_board(book->scope, &book->line_first, &book->line_mask) != 0 ||
         has_four(book->line_first) || has_four(book->line_first ^ book->line_mask))) {
        c4book_close(book);
        return fail(err, errlen, path, "bad scope line");
    }
    /* the CRC covers the header (its CRC field read as zeros) and the payload */
    static const unsigned char zeros[4] = {0, 0, 0, 0};
    uint32_t sum = crc32_update(0, d, 40);
    sum = crc32_update(sum, zeros, 4);
    sum = crc32_update(sum, d + 44, (size_t)header_bytes - 44);
    sum = crc32_update(sum, book->payload, (size_t)payload_bytes);
    if (sum != crc) {
        c4book_close(book);
        return fail(err, errlen, path, "checksum mismatch (damaged file)");
    }
    return 0;
}

void c4book_close(c4book *book)
{
    free(book->data);
    book->data = NULL;
    book->payload = NULL;
}

/* ----------------------------------------------------------- position model */
static const uint64_t BOTTOM = 0x0000040810204081ull; /* bit 0 of each column */
static const uint64_t BOARD = 0x0000FDFBF7EFDFBFull;  /* the 42 cells */

static int popcount64(uint64_t x)
{
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

static int has_four(uint64_t s)
{
    static const int shifts[4] = {1, H1, HEIGHT, H1 + 1};
    for (int i = 0; i < 4; i++) {
        uint64_t m = s & (s >> shifts[i]);
        if (m & (m >> (2 * shifts[i])))
            return 1;
    }
    return 0;
}

/* Empty cells where stones `s` would complete four. */
static uint64_t winning_cells(uint64_t s, uint64_t mask)
{
    uint64_t r = (s << 1) & (s << 2) & (s << 3);
    static const int shifts[3] = {H1, HEIGHT, H1 + 1};
    for (int i = 0; i < 3; i++) {
        int d = shifts[i];
        uint64_t p = (s << d) & (s << (2 * d));
        r |= p & (s << (3 * d));
        r |= p & (s >> d);
        p = (s >> d) & (s >> (2 * d));
        r |= p & (s << d);
        r |= p & (s >> (3 * d));
    }
    return r & (BOARD ^ mask);
}

/* Take the stones above `floor` back, newest first, in alternation: the greedy pass
 * (see FORMATS.md). 1: an order was found; 0: none found (one may still exist). */
static int greedy_reachable(uint64_t first, uint64_t mask, uint64_t floor)
{
    uint64_t a = first, b = first ^ mask, m = mask;
    int stones = popcount64(mask);
    for (int left = stones; left > popcount64(floor); left--) {
        uint64_t tops = ((m + BOTTOM) >> 1) & m & ~floor;
        uint64_t own = (left % 2 == 1) ? a : b;
        uint64_t other = (left % 2 == 1) ? b : a;
        uint64_t cand = tops & own;
        uint64_t pick = cand & (other << 1);
        if (!pick)
            pick = cand & (own << 1);
        if (!pick)
            pick = cand;
        if (!pick)
            return 0;
        uint64_t bit = pick & (0 - pick);
        m ^= bit;
        a &= ~bit;
        b &= ~bit;
    }
    return 1;
}

/* Exact: depth-first over the columns' heights, failed states remembered. */
static int search_back(uint64_t first, int *h, const int *floor_h, const long *radix,
                       unsigned char *failed, int left, int target)
{
    if (left == target)
        return 1;
    long index = 0;
    for (int c = 0; c < WIDTH; c++)
        index += h[c] * radix[c];
    if (failed[index])
        return 0;
    int mover_first = left % 2 == 1;
    for (int c = 0; c < WIDTH; c++) {
        if (h[c] == floor_h[c])
            continue;
        int is_first = (first >> (c * H1 + h[c] - 1)) & 1;
        if (is_first != mover_first)
            continue;
        h[c]--;
        int ok = search_back(first, h, floor_h, radix, failed, left - 1, target);
        h[c]++;
        if (ok)
            return 1;
    }
    failed[index] = 1;
    return 0;
}

/* Exact: can the stones above `floor` be taken back in alternation? */
static int exhaustive_reachable(uint64_t first, uint64_t mask, uint64_t floor)
{
    int h[WIDTH], floor_h[WIDTH];
    long radix[WIDTH + 1];
    radix[0] = 1;
    for (int c = 0; c < WIDTH; c++) {
        h[c] = popcount64((mask >> (c * H1)) & 0x7F);
        floor_h[c] = popcount64((floor >> (c * H1)) & 0x7F);
        radix[c + 1] = radix[c] * (h[c] + 1);
    }
    unsigned char *failed = calloc((size_t)radix[WIDTH], 1);
    if (!failed)
        return 0; /* out of memory: refuse rather than guess */
    int ok = search_back(first, h, floor_h, radix, failed, popcount64(mask), popcount64(floor));
    free(failed);
    return ok;
}

static uint64_t mirror(uint64_t bits)
{
    uint64_t out = 0;
    for (int c = 0; c < WIDTH; c++)
        out |= ((bits >> (c * H1)) & 0x7F) << ((WIDTH - 1 - c) * H1);
    return out;
}

/* Does some game continue the position floor_first/floor (a subset of the stones, same
 * colours) to first/mask? The greedy pass, the same on the mirror image (the other
 * tie-breaks), then the exhaustive search. */
static int reachable_from(uint64_t first, uint64_t mask, uint64_t floor_first, uint64_t floor)
{
    if ((mask & floor) != floor || (first & floor) != floor_first)
        return 0;
    return greedy_reachable(first, mask, floor) ||
           greedy_reachable(mirror(first), mirror(mask), mirror(floor)) ||
           exhaustive_reachable(first, mask, floor);
}

int c4book_position_status(uint64_t first, uint64_t mask, int plies)
{
    int stones = popcount64(mask);
    if (stones != plies)
        return C4BOOK_WRONG_PLY;
    if ((mask & ~BOARD) || (first & ~mask) || ((mask + BOTTOM) & mask))
        return C4BOOK_NOT_A_BOARD;
    if (popcount64(first) != (stones + 1) / 2)
        return C4BOOK_STONE_COUNTS;
    uint64_t second = first ^ mask;
    if (has_four(first) || has_four(second))
        return C4BOOK_HAS_FOUR;
    if (!reachable_from(first, mask, 0, 0))
        return C4BOOK_UNREACHABLE;
    uint64_t current = (stones % 2 == 0) ? first : second;
    if (winning_cells(current, mask) & ((mask + BOTTOM) & BOARD))
        return C4BOOK_WINS_AT_ONCE;
    return C4BOOK_FOUND;
}

static uint64_t canonical_key(uint64_t first, uint64_t mask)
{
    uint64_t current = (popcount64(mask) % 2 == 0) ? first : first ^ mask;
    uint64_t key = current + mask + BOTTOM;
    uint64_t mirrored = mirror(key);
    return mirrored < key ? mirrored : key;
}

/* ------------------------------------------------------------------ payload */
static uint64_t mix(uint64_t key, uint64_t seed)
{
    uint64_t z = key + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t word(const unsigned char *words, uint64_t w)
{
    return rd_le(words + 8 * w, 8);
}

static unsigned field(const unsigned char *words, uint64_t index, int bits)
{
    uint64_t start = index * (uint64_t)bits;
    uint64_t w = start >> 6;
    unsigned off = (unsigned)(start & 63);
    uint64_t v = word(words, w) >> off;
    if (off + (unsigned)bits > 64)
        v |= word(words, w + 1) << (64 - off);
    return (unsigned)(v & ((1u << bits) - 1));
}

int c4book_lookup(const c4book *book, uint64_t first, uint64_t mask, int *value)
{
    int status = c4book_position_status(first, mask, book->plies);
    if (status > C4BOOK_WINS_AT_ONCE)
        return status;
    if (book->structure == 1 &&
        !reachable_from(first, mask, book->line_first, book->line_mask) &&
        !reachable_from(mirror(first), mirror(mask), book->line_first, book->line_mask))
        return C4BOOK_OUT_OF_SCOPE;
    if (status == C4BOOK_WINS_AT_ONCE)
        return status;
    uint64_t key = canonical_key(first, mask);
    uint64_t h = mix(key, book->seed);
    uint64_t L = book->segment_length;
    uint64_t c0 = ((h >> 32) * (L * book->segment_count)) >> 32;
    uint64_t c1 = (c0 + L) ^ (h & (L - 1));
    uint64_t c2 = (c0 + 2 * L) ^ ((h >> 16) & (L - 1));
    unsigned index = field(book->payload, c0, book->value_bits) ^
                     field(book->payload, c1, book->value_bits) ^
                     field(book->payload, c2, book->value_bits);
    if ((int)index >= book->value_count)
        return C4BOOK_DAMAGED; /* cannot happen in an intact file */
    *value = book->values[index];
    return C4BOOK_FOUND;
}

int c4book_lookup_moves(const c4book *book, const char *moves, int *value)
{
    uint64_t first, mask;
    if (moves_to_board(moves, &first, &mask) != 0)
        return C4BOOK_BAD_MOVES;
    return c4book_lookup(book, first, mask, value);
}
