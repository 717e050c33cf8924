/*
 * c4book: reference reader of the compact book format (see c4book.h and
 * docs/FORMATS.md, "The compact book format"). Plain C99.
 */
#include "c4book.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXED_HEADER 64
#define MAX_PARTS 65536
#define MAX_CODE 15 /* version 3: the longest codeword the format allows */

static const unsigned char MAGIC[8] = {'C', '4', 'B', 'O', 'O', 'K', 0x1a, '\n'};

/* Positions of a complete book per board and ply, where known: each row W, H, the number
 * of plies counted, then the counts from ply 0 (openingbook/checks/booksizes.py,
 * COMPLETE_POSITIONS; tests/test_c_reader.py checks the two agree). */
static const uint32_t COMPLETE_POSITIONS[] = {
    4, 4, 17, 1, 2, 8, 26, 82, 218, 524, 1202, 2218, 4123, 5900, 8526, 9390, 9473, 7780, 5346,
    2674,
    4, 5, 21, 1, 2, 8, 26, 82, 220, 560, 1424, 3028, 6637, 11720, 22045, 32500, 50582, 62040,
    77319, 73250, 67797, 53735, 37186, 18549,
    4, 6, 25, 1, 2, 8, 26, 82, 220, 562, 1466, 3320, 7979, 15590, 33193, 56963, 107329, 159895,
    260926, 341124, 471749, 523070, 571994, 520952, 471557, 381737, 263020, 131147,
    4, 7, 29, 1, 2, 8, 26, 82, 220, 562, 1468, 3368, 8393, 17454, 40003, 74170, 154314, 259266,
    487082, 734959, 1229777, 1671478, 2474698, 3010056, 3782094, 3872256, 4043923, 3648968,
    3305893, 2686006, 1844137, 919762,
    4, 8, 19, 1, 2, 8, 26, 82, 220, 562, 1468, 3370, 8447, 17950, 42923, 84166, 185683, 332752,
    679659, 1125121, 2117372, 3222370,
    4, 9, 19, 1, 2, 8, 26, 82, 220, 562, 1468, 3370, 8449, 18010, 43589, 87910, 202297, 379700,
    815020, 1427344, 2869797, 4721090,
    4, 10, 18, 1, 2, 8, 26, 82, 220, 562, 1468, 3370, 8449, 18012, 43655, 88664, 207855,
    402602, 896871, 1634580, 3432542,
    4, 11, 18, 1, 2, 8, 26, 82, 220, 562, 1468, 3370, 8449, 18012, 43657, 88736, 208833,
    409288, 932907, 1751861, 3802510,
    4, 12, 18, 1, 2, 8, 26, 82, 220, 562, 1468, 3370, 8449, 18012, 43657, 88738, 208911,
    410354, 942435, 1798679, 3997147,
    4, 13, 18, 1, 2, 8, 26, 82, 220, 562, 1468, 3370, 8449, 18012, 43657, 88738, 208913,
    410438, 943785, 1809605, 4067497,
    4, 14, 18, 1, 2, 8, 26, 82, 220, 562, 1468, 3370, 8449, 18012, 43657, 88738, 208913,
    410440, 943875, 1811037, 4082599,
    4, 15, 18, 1, 2, 8, 26, 82, 220, 562, 1468, 3370, 8449, 18012, 43657, 88738, 208913,
    410440, 943877, 1811133, 4084381,
    5, 4, 21, 1, 3, 13, 49, 177, 542, 1500, 3936, 8556, 18911, 33490, 61168, 88583, 130723,
    150630, 175404, 154386, 127787, 84059, 46724, 18739,
    5, 5, 26, 1, 3, 13, 49, 177, 545, 1560, 4414, 10647, 26501, 54078, 118476, 207963, 396130,
    600165, 985979, 1274967, 1761019, 1917313, 2173845, 1931162, 1662324, 1182340, 821356,
    449096, 170009,
    5, 6, 17, 1, 3, 13, 49, 177, 545, 1563, 4484, 11286, 29981, 65918, 157274, 306052, 661165,
    1146462, 2224680, 3455788,
    5, 7, 16, 1, 3, 13, 49, 177, 545, 1563, 4487, 11366, 30881, 70786, 178300, 366941, 847953,
    1590987, 3388752,
    5, 8, 16, 1, 3, 13, 49, 177, 545, 1563, 4487, 11369, 30971, 71880, 185964, 398016, 960390,
    1887351, 4251031,
    5, 9, 16, 1, 3, 13, 49, 177, 545, 1563, 4487, 11369, 30974, 71980, 187418, 407903, 1012620,
    2057807, 4805061,
    5, 10, 15, 1, 3, 13, 49, 177, 545, 1563, 4487, 11369, 30974, 71983, 187528, 409573,
    1027344, 2129895,
    5, 11, 15, 1, 3, 13, 49, 177, 545, 1563, 4487, 11369, 30974, 71983, 187531, 409693,
    1029484, 2147684,
    6, 4, 25, 1, 3, 18, 78, 330, 1125, 3550, 10435, 25942, 64979, 134018, 286169, 496452,
    901017, 1305290, 1994579, 2378969, 2969224, 2842319, 2797878, 2055059, 1472763, 822561,
    396648, 132232,
    6, 5, 15, 1, 3, 18, 78, 330, 1128, 3640, 11281, 30439, 83521, 191625, 469193, 938770,
    2045895, 3600499,
    6, 6, 14, 1, 3, 18, 78, 330, 1128, 3643, 11386, 31594, 91002, 220972, 577035, 1245153,
    2974908,
    6, 7, 14, 1, 3, 18, 78, 330, 1128, 3643, 11389, 31714, 92613, 231554, 629150, 1416880,
    3556225,
    6, 8, 14, 1, 3, 18, 78, 330, 1128, 3643, 11389, 31717, 92748, 233549, 645757, 1494726,
    3874872,
    6, 9, 14, 1, 3, 18, 78, 330, 1128, 3643, 11389, 31717, 92751, 233699, 648373, 1516434,
    4005829,
    7, 4, 14, 1, 4, 25, 121, 568, 2140, 7508, 24181, 67273, 186247, 433258, 1039910, 2062265,
    4314390,
    7, 5, 13, 1, 4, 25, 121, 568, 2144, 7634, 25571, 75790, 225809, 570931, 1527969, 3390986,
    7, 6, 13, 1, 4, 25, 121, 568, 2144, 7638, 25718, 77715, 239959, 634338, 1784788, 4200899,
    7, 7, 13, 1, 4, 25, 121, 568, 2144, 7638, 25722, 77883, 242630, 654551, 1897119, 4614903,
    7, 8, 13, 1, 4, 25, 121, 568, 2144, 7638, 25722, 77887, 242819, 657898, 1928720, 4784416,
    8, 4, 12, 1, 4, 32, 172, 908, 3724, 14448, 50548, 155329, 468442, 1206400, 3188180,
    8, 5, 12, 1, 4, 32, 172, 908, 3728, 14616, 52630, 170031, 544432, 1499787, 4331064,
    8, 6, 12, 1, 4, 32, 172, 908, 3728, 14620, 52826, 172955, 568858, 1622751, 4876954,
    8, 7, 11, 1, 4, 32, 172, 908, 3728, 14620, 52830, 173179, 572900, 1657905,
    9, 4, 11, 1, 5, 41, 241, 1385, 6156, 26032, 97929, 328561, 1068180, 3005277,
    9, 5, 11, 1, 5, 41, 241, 1385, 6161, 26248, 100929, 352216, 1203405, 3577749,
    9, 6, 11, 1, 5, 41, 241, 1385, 6161, 26253, 101181, 356473, 1242732, 3798115,
    10, 4, 10, 1, 5, 50, 320, 2020, 9645, 44280, 178186, 647625, 2252742,
    10, 5, 10, 1, 5, 50, 320, 2020, 9650, 44550, 182280, 683646, 2478630,
    11, 4, 10, 1, 6, 61, 421, 2856, 14600, 72090, 308488, 1205815, 4461430,
    12, 4, 9, 1, 6, 72, 534, 3918, 21318, 112860, 511748, 2139905,
    0};

uint64_t c4book_complete_positions(int width, int height, int plies)
{
    for (const uint32_t *row = COMPLETE_POSITIONS; row[0]; row += 3 + row[2])
        if ((int)row[0] == width && (int)row[1] == height)
            return plies >= 0 && (uint32_t)plies < row[2] ? row[3 + plies] : 0;
    return 0;
}

/* The geometry of a W x H board in Pons' layout (column c, row r: bit c * (H + 1) + r). */
typedef struct {
    int width, height;
    uint64_t bottom; /* bit 0 of every column */
    uint64_t board;  /* the W * H cells */
    uint64_t odd;    /* the rows 1, 3, 5, ... counted from 1 at the bottom */
    uint64_t centre; /* the centre column (W odd) or the two centre columns (W even) */
} geometry;

static geometry make_geometry(int width, int height)
{
    geometry g;
    g.width = width;
    g.height = height;
    g.bottom = 0;
    for (int c = 0; c < width; c++)
        g.bottom |= 1ull << (c * (height + 1));
    g.board = g.bottom * ((1ull << height) - 1);
    g.odd = 0;
    for (int r = 0; r < height; r += 2)
        g.odd |= g.bottom << r;
    uint64_t column = (1ull << height) - 1;
    g.centre = (column << ((width - 1) / 2 * (height + 1))) | (column << (width / 2 * (height + 1)));
    return g;
}

/* The book's geometry, from the masks c4book_open keeps (no loop per lookup). */
static geometry book_geometry(const c4book *book)
{
    geometry g;
    g.width = book->width;
    g.height = book->height;
    g.bottom = book->masks[0];
    g.board = book->masks[1];
    g.odd = book->masks[2];
    g.centre = book->masks[3];
    return g;
}

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

/* The board after a move string: 1-based column digits ("4453") on boards of up to 9
 * columns, or column numbers separated by commas ("10,1,12", any board). -1 for a bad
 * move or a full column. */
static int moves_to_board(const geometry *g, const char *moves, uint64_t *first, uint64_t *mask)
{
    *first = *mask = 0;
    int commas = strchr(moves, ',') != NULL || g->width > 9;
    int n = 0;
    const char *p = moves;
    while (*p) {
        int col = 0, digits = 0;
        while (*p >= '0' && *p <= '9' && (commas || digits == 0) && digits < 3) {
            col = col * 10 + (*p++ - '0');
            digits++;
        }
        if (digits == 0 || (commas && *p && *p++ != ','))
            return -1;
        if (commas && !*p && p[-1] == ',')
            return -1; /* a trailing comma */
        col -= 1;
        if (col < 0 || col >= g->width)
            return -1;
        int h1 = g->height + 1;
        uint64_t column = ((1ull << g->height) - 1) << (col * h1);
        uint64_t cell = (*mask + (1ull << (col * h1))) & column & ~*mask; /* lowest empty cell */
        if (!cell)
            return -1; /* the column is full */
        *mask |= cell;
        if (n % 2 == 0)
            *first |= cell;
        n++;
    }
    return 0;
}

static int has_four(uint64_t s, int height);
static int popcount64(uint64_t x);

/* Can `v` be a value of this kind at `plies` stones on a board of `cells` cells?
 * (FORMATS.md, "Values") */
static int value_in_range(int kind, int plies, int cells, int v)
{
    int room = cells - plies; /* plies left to play */
    int half = cells / 2;
    if (kind == C4BOOK_KIND_WDL)
        return v >= -1 && v <= 1;
    if (kind == C4BOOK_KIND_DISTANCE) {
        int d = v > 0 ? 100 - v : 100 + v;
        return v == 0 || (d >= 1 && d <= room);
    }
    /* score: at best a win with the mover's next stone, at worst a loss to the opponent's */
    return v <= half - plies / 2 && v >= -(half - (plies + 1) / 2);
}

/* "i/n" with 1 <= i <= n <= 65536, decimal digits only; 0 when it is not. */
static int parse_part(const char *text, uint32_t *i, uint32_t *n)
{
    uint64_t v[2] = {0, 0};
    int k = 0, digits = 0;
    for (const char *p = text;; p++) {
        if (*p >= '0' && *p <= '9') {
            v[k] = v[k] * 10 + (uint64_t)(*p - '0');
            if (v[k] > MAX_PARTS)
                return 0;
            digits++;
        } else if ((*p == '/' && k == 0) || *p == '\0') {
            if (!digits)
                return 0;
            if (*p == '\0')
                break;
            k++;
            digits = 0;
        } else {
            return 0;
        }
    }
    if (k != 1 || v[0] < 1 || v[0] > v[1])
        return 0;
    *i = (uint32_t)v[0];
    *n = (uint32_t)v[1];
    return 1;
}

/* ------------------------------------------------------- version 3: the codes */
/* Bytes of version 3's bit array: (S + 2) * L + MAX_CODE bits in 64-bit words, and
 * one more zero word. */
static uint64_t bit_array_bytes(uint64_t table_cells)
{
    return 8 * ((table_cells + MAX_CODE + 63) / 64 + 1);
}

/* b of the context function "threats and centre": the stone counts one player can
 * have in the centre column (W odd) or the two centre columns (W even). */
static uint32_t centre_base(int width, int height)
{
    return (uint32_t)(width % 2 ? height + 1 : 2 * height + 1);
}

/* X, the number of contexts of the book's context function. */
static uint32_t context_space(const c4book *book)
{
    uint32_t b = centre_base(book->width, book->height);
    return book->context_function == 0 ? 1 : 432 * b * b;
}

/* Parse and check version 3's code section (FORMATS.md, "Version 3"): every rule of
 * the section, so that a lookup needs no check but "context listed" (a complete code
 * decodes any bits). NULL on success, else the reason; moves book->payload to the bit
 * array. */
static const char *read_codes(c4book *book, uint64_t payload_bytes, uint64_t table_cells)
{
    const unsigned char *p = book->payload;
    uint64_t used = rd_le(p, 4), list_bytes = rd_le(p + 4, 4);
    uint32_t space = context_space(book);
    int nvalues = book->value_count;
    if (used < 1 || used > space)
        return "bad code tables: used contexts out of range (damaged file)";
    uint64_t length_bytes = (used * (uint64_t)nvalues + 1) / 2;
    uint64_t section = 8 * ((8 + list_bytes + length_bytes + 7) / 8);
    if (list_bytes < used || section + bit_array_bytes(table_cells) != payload_bytes)
        return "bad code tables: the code section and the bit array do not fill the payload "
               "(damaged file)";
    book->context_space = space;
    book->code_of_context = malloc(sizeof(int32_t) * space);
    book->codes = calloc((size_t)used * 32, sizeof(uint16_t));
    book->code_values = calloc((size_t)used * (size_t)nvalues, 1);
    if (!book->code_of_context || !book->codes || !book->code_values)
        return "out of memory";
    for (uint32_t x = 0; x < space; x++)
        book->code_of_context[x] = -1;
    /* the context list: LEB128 numbers, the first context, then the gaps */
    const unsigned char *at = p + 8, *end = p + 8 + list_bytes;
    uint64_t context = 0;
    for (uint64_t u = 0; u < used; u++) {
        uint64_t number = 0;
        int shift = 0;
        for (;;) {
            if (at == end || shift > 35)
                return "bad code tables: the context list is cut short (damaged file)";
            unsigned char byte = *at++;
            number |= (uint64_t)(byte & 0x7F) << shift;
            shift += 7;
            if (!(byte & 0x80))
                break;
        }
        if (u > 0 && number == 0)
            return "bad code tables: a context listed twice (damaged file)";
        context = u == 0 ? number : context + number;
        if (context >= space)
            return "bad code tables: a context past the context space (damaged file)";
        book->code_of_context[context] = (int32_t)u;
    }
    if (at != end)
        return "bad code tables: the context list is longer than its numbers (damaged file)";
    /* the code lengths: 4-bit fields, low half first */
    const unsigned char *lengths = end;
    int longest = 0;
    for (uint64_t u = 0; u < used; u++) {
        int len[256], per_length[MAX_CODE + 1] = {0};
        int coded = 0, only = 0;
        for (int v = 0; v < nvalues; v++) {
            uint64_t i = u * (uint64_t)nvalues + (uint64_t)v;
            len[v] = (lengths[i / 2] >> (4 * (i % 2))) & 0xF;
            if (len[v]) {
                per_length[len[v]]++;
                coded++;
                only = v;
            }
        }
        uint16_t *limit = book->codes + 32 * u, *base = limit + 16;
        unsigned char *values = book->code_values + u * (uint64_t)nvalues;
        if (coded == 0)
            return "bad code tables: a listed context without values (damaged file)";
        if (coded == 1) { /* one value: no codeword, limit[0] = 0 */
            if (len[only] != 1)
                return "bad code tables: a context's lengths are not a complete code "
                       "(damaged file)";
            values[0] = (unsigned char)only;
            continue;
        }
        /* complete: sum of 2^-length = 1, in units of 2^-15 */
        uint32_t kraft = 0;
        for (int l = 1; l <= MAX_CODE; l++) {
            kraft += (uint32_t)per_length[l] << (MAX_CODE - l);
            if (per_length[l] && l > longest)
                longest = l;
        }
        if (kraft != 1u << MAX_CODE)
            return "bad code tables: a context's lengths are not a complete code (damaged file)";
        /* canonical (DEFLATE's rule): values by (length, index), the first codeword of each
         * length one more than the last of the length before, shifted. For the decoder:
         * limit[l], the end of the codewords of up to l bits as 15-bit numbers (the
         * codeword's bits left-aligned), and base[l], what turns a codeword of l bits into
         * its place among the values (mod 2^16) */
        limit[0] = (uint16_t)coded;
        uint32_t code = 0;
        int k = 0;
        for (int l = 1; l <= MAX_CODE; l++) {
            code = (code + (l > 1 ? (uint32_t)per_length[l - 1] : 0)) << 1;
            limit[l] = (uint16_t)((code + (uint32_t)per_length[l]) << (MAX_CODE - l));
            base[l] = (uint16_t)((uint32_t)k - code);
            for (int v = 0; v < nvalues; v++)
                if (len[v] == l)
                    values[k++] = (unsigned char)v;
        }
    }
    if (longest != book->longest_code)
        return "bad code tables: K is not the longest codeword (damaged file)";
    uint64_t fields = used * (uint64_t)nvalues;
    if (fields % 2 && (lengths[fields / 2] >> 4))
        return "bad code tables: nonzero padding (damaged file)";
    for (const unsigned char *q = lengths + length_bytes; q < p + section; q++)
        if (*q)
            return "bad code tables: nonzero padding (damaged file)";
    book->payload = p + section;
    return NULL;
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
    book->width = d[10];
    book->height = d[11];
    book->plies = d[12];
    book->kind = d[13];
    book->structure = d[14];
    book->version = (int)version;
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
    if (version == 3) { /* offset 15: K; offset 58: the context function */
        book->longest_code = d[15];
        book->context_function = d[58];
        reserved = d[59];
    } else {
        book->value_bits = d[15];
    }
    uint64_t meta_len = rd_le(d + 60, 4); /* version 3: zlib-compressed; skipped */
    int cells = book->width * book->height;
    const char *bad = NULL;
    if (version == 1)
        bad = "compact format version 1, whose header has no checksum (write the book again)";
    else if (version != 2 && version != 3)
        bad = "unsupported version (this reader knows versions 2 and 3)";
    else if (book->width < 1 || book->height < 1 || book->height > 9 ||
             book->width * (book->height + 1) > 64)
        bad = "bad board size (a board of W x H needs W * (H + 1) <= 64 and H <= 9)";
    else if (book->kind > 2 || book->structure > 2)
        bad = "unknown value kind or structure";
    else if (reserved)
        bad = "a reserved field is not 0";
    else if (version == 2 && (book->value_bits < 1 || book->value_bits > 8 ||
                              book->value_count < 1 ||
                              book->value_count > (1 << book->value_bits)))
        bad = "bad value table size";
    else if (version == 3 && book->value_count < 1)
        bad = "bad value table size";
    else if (version == 3 && book->longest_code > MAX_CODE)
        bad = "bad code tables: a codeword longer than 15 bits (damaged file)";
    else if (version == 3 && book->context_function > 1)
        bad = "unknown context function";
    else if (book->plies > cells)
        bad = "bad ply (more stones than cells)";
    else if (header_bytes != ((FIXED_HEADER + book->value_count + scope_len + meta_len + 7) / 8) * 8)
        bad = "bad header length";
    else if (header_bytes + payload_bytes != (uint64_t)size)
        bad = "file size does not match the header";
    if (!bad) {
        uint32_t L = book->segment_length;
        /* in 64 bits: S + 2 must not wrap around in 32 */
        uint64_t table_cells = (uint64_t)L * ((uint64_t)book->segment_count + 2);
        /* S * L <= 2^32, so that (h >> 32) * (S * L) fits in 64 bits */
        if (L < 4 || (L & (L - 1)) || L > 65536u || book->segment_count < 1 ||
            (uint64_t)L * book->segment_count > (1ull << 32))
            bad = "bad segment length or count";
        else if (version == 2 &&
                 payload_bytes != 8 * ((table_cells * (uint64_t)book->value_bits + 63) / 64 + 1))
            bad = "payload length does not match the table size";
        else if (version == 3 && payload_bytes < 8 + bit_array_bytes(table_cells))
            bad = "payload length does not match the table size";
        else if ((book->structure != 0) != (scope_len > 0))
            bad = "a scope belongs to a scoped book or a part, and only there";
    }
    /* a complete book's table answers every position of its ply: it must have been built
     * over all of them, or it answers positions it never held */
    uint64_t need = c4book_complete_positions(book->width, book->height, book->plies);
    if (!bad && book->structure == 0 && need && book->positions != need) {
        char why[200];
        snprintf(why, sizeof why,
                 "a complete %d-ply book of %llu positions, where a complete %dx%d %d-ply book "
                 "has %llu (damaged, or a partial book)",
                 book->plies, (unsigned long long)book->positions, book->width, book->height,
                 book->plies, (unsigned long long)need);
        c4book_close(book);
        return fail(err, errlen, path, why);
    }
    if (bad) {
        c4book_close(book);
        return fail(err, errlen, path, bad);
    }
    for (int i = 0; i < book->value_count; i++) {
        book->values[i] = (signed char)d[FIXED_HEADER + i];
        if (i > 0 && book->values[i] <= book->values[i - 1])
            bad = "the value table is not strictly ascending";
        else if (!value_in_range(book->kind, book->plies, cells, book->values[i]))
            bad = "bad value table (a value no game of the book's ply can have)";
        if (bad) {
            c4book_close(book);
            return fail(err, errlen, path, bad);
        }
    }
    memcpy(book->scope, d + FIXED_HEADER + book->value_count, (size_t)scope_len);
    book->scope[scope_len] = '\0';
    book->payload = d + header_bytes;
    geometry g = make_geometry(book->width, book->height);
    book->masks[0] = g.bottom;
    book->masks[1] = g.board;
    book->masks[2] = g.odd;
    book->masks[3] = g.centre;
    if (book->structure == 1 &&
        (strlen(book->scope) != (size_t)scope_len ||
         moves_to_board(&g, book->scope, &book->line_first, &book->line_mask) != 0 ||
         popcount64(book->line_mask) > book->plies ||
         has_four(book->line_first, g.height) ||
         has_four(book->line_first ^ book->line_mask, g.height))) {
        c4book_close(book);
        return fail(err, errlen, path, "bad scope line");
    }
    if (book->structure == 2 &&
        (strlen(book->scope) != (size_t)scope_len ||
         !parse_part(book->scope, &book->part_index, &book->part_count))) {
        c4book_close(book);
        return fail(err, errlen, path, "bad part (expected i/n with 1 <= i <= n <= 65536)");
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
    if (version == 3) {
        uint64_t table_cells = (uint64_t)book->segment_length * ((uint64_t)book->segment_count + 2);
        bad = read_codes(book, payload_bytes, table_cells);
        if (bad) {
            c4book_close(book);
            return fail(err, errlen, path, bad);
        }
    }
    return 0;
}

void c4book_close(c4book *book)
{
    free(book->data);
    free(book->code_of_context);
    free(book->codes);
    free(book->code_values);
    book->data = NULL;
    book->payload = NULL;
    book->code_of_context = NULL;
    book->codes = NULL;
    book->code_values = NULL;
}

/* ----------------------------------------------------------- position model */
/* Branch-free (SWAR): the context counts several bit sets per lookup. */
static int popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

static int has_four(uint64_t s, int height)
{
    int h1 = height + 1;
    int shifts[4] = {1, h1, height, h1 + 1};
    for (int i = 0; i < 4; i++) {
        uint64_t m = s & (s >> shifts[i]);
        if (m & (m >> (2 * shifts[i])))
            return 1;
    }
    return 0;
}

/* Empty cells (playable or not) where stones `s` would complete four. */
static uint64_t winning_cells(const geometry *g, uint64_t s, uint64_t mask)
{
    uint64_t r = (s << 1) & (s << 2) & (s << 3);
    int h1 = g->height + 1;
    int shifts[3] = {h1, g->height, h1 + 1};
    for (int i = 0; i < 3; i++) {
        int d = shifts[i];
        uint64_t p = (s << d) & (s << (2 * d));
        r |= p & (s << (3 * d));
        r |= p & (s >> d);
        p = (s >> d) & (s >> (2 * d));
        r |= p & (s << d);
        r |= p & (s >> (3 * d));
    }
    return r & (g->board ^ mask);
}

/* Take the stones above `floor` back, newest first, in alternation: the greedy pass
 * (see FORMATS.md). 1: an order was found; 0: none found (one may still exist). */
static int greedy_reachable(const geometry *g, uint64_t first, uint64_t mask, uint64_t floor)
{
    uint64_t a = first, b = first ^ mask, m = mask;
    int stones = popcount64(mask);
    for (int left = stones; left > popcount64(floor); left--) {
        uint64_t tops = ((m + g->bottom) >> 1) & m & ~floor;
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
static int search_back(const geometry *g, uint64_t first, int *h, const int *floor_h,
                       const long *radix, unsigned char *failed, int left, int target)
{
    if (left == target)
        return 1;
    long index = 0;
    for (int c = 0; c < g->width; c++)
        index += h[c] * radix[c];
    if (failed[index])
        return 0;
    int mover_first = left % 2 == 1;
    for (int c = 0; c < g->width; c++) {
        if (h[c] == floor_h[c])
            continue;
        int is_first = (first >> (c * (g->height + 1) + h[c] - 1)) & 1;
        if (is_first != mover_first)
            continue;
        h[c]--;
        int ok = search_back(g, first, h, floor_h, radix, failed, left - 1, target);
        h[c]++;
        if (ok)
            return 1;
    }
    failed[index] = 1;
    return 0;
}

/* Exact: can the stones above `floor` be taken back in alternation? */
static int exhaustive_reachable(const geometry *g, uint64_t first, uint64_t mask, uint64_t floor)
{
    int h[64], floor_h[64];
    long radix[65];
    int h1 = g->height + 1;
    uint64_t column = (1ull << h1) - 1;
    radix[0] = 1;
    for (int c = 0; c < g->width; c++) {
        h[c] = popcount64((mask >> (c * h1)) & column);
        floor_h[c] = popcount64((floor >> (c * h1)) & column);
        radix[c + 1] = radix[c] * (h[c] + 1);
    }
    unsigned char *failed = calloc((size_t)radix[g->width], 1);
    if (!failed)
        return 0; /* out of memory: refuse rather than guess */
    int ok = search_back(g, first, h, floor_h, radix, failed, popcount64(mask), popcount64(floor));
    free(failed);
    return ok;
}

static uint64_t mirror(const geometry *g, uint64_t bits)
{
    int h1 = g->height + 1;
    uint64_t column = (1ull << h1) - 1;
    uint64_t out = 0;
    for (int c = 0; c < g->width; c++)
        out |= ((bits >> (c * h1)) & column) << ((g->width - 1 - c) * h1);
    return out;
}

/* Does some game continue the position floor_first/floor (a subset of the stones, same
 * colours) to first/mask? The greedy pass, the same on the mirror image (the other
 * tie-breaks), then the exhaustive search. */
static int reachable_from(const geometry *g, uint64_t first, uint64_t mask, uint64_t floor_first,
                          uint64_t floor)
{
    if ((mask & floor) != floor || (first & floor) != floor_first)
        return 0;
    return greedy_reachable(g, first, mask, floor) ||
           greedy_reachable(g, mirror(g, first), mirror(g, mask), mirror(g, floor)) ||
           exhaustive_reachable(g, first, mask, floor);
}

static int position_status(const geometry *g, uint64_t first, uint64_t mask, int plies)
{
    int stones = popcount64(mask);
    if (stones != plies) {
        /* a position no game reaches is refused as such whatever the book's ply */
        int s = position_status(g, first, mask, stones);
        return s > C4BOOK_WRONG_PLY ? s : C4BOOK_WRONG_PLY;
    }
    if ((mask & ~g->board) || (first & ~mask) || ((mask + g->bottom) & mask))
        return C4BOOK_NOT_A_BOARD;
    if (popcount64(first) != (stones + 1) / 2)
        return C4BOOK_STONE_COUNTS;
    uint64_t second = first ^ mask;
    if (has_four(first, g->height) || has_four(second, g->height))
        return C4BOOK_HAS_FOUR;
    if (!reachable_from(g, first, mask, 0, 0))
        return C4BOOK_UNREACHABLE;
    uint64_t current = (stones % 2 == 0) ? first : second;
    if (winning_cells(g, current, mask) & ((mask + g->bottom) & g->board))
        return C4BOOK_WINS_AT_ONCE;
    return C4BOOK_FOUND;
}

int c4book_position_status(uint64_t first, uint64_t mask, int plies)
{
    geometry g = make_geometry(7, 6);
    return position_status(&g, first, mask, plies);
}

int c4book_board_position_status(uint64_t first, uint64_t mask, int plies, int width, int height)
{
    if (width < 1 || height < 1 || height > 9 || width * (height + 1) > 64)
        return C4BOOK_NOT_A_BOARD;
    geometry g = make_geometry(width, height);
    return position_status(&g, first, mask, plies);
}

static uint64_t canonical_key(const geometry *g, uint64_t first, uint64_t mask)
{
    uint64_t current = (popcount64(mask) % 2 == 0) ? first : first ^ mask;
    uint64_t key = current + mask + g->bottom;
    uint64_t mirrored = mirror(g, key);
    return mirrored < key ? mirrored : key;
}

/* The part (1..n) of a canonical key (FORMATS.md, "Which positions a book answers"). */
static uint32_t part_of(uint64_t key, uint32_t parts)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(((h >> 32) * parts) >> 32) + 1;
}

/* ------------------------------------------------------------------ payload */
static uint64_t mix(uint64_t key, uint64_t seed)
{
    uint64_t z = key + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* 64-bit little-endian word w of a stream of words (one load on little-endian hosts) */
static uint64_t word(const unsigned char *words, uint64_t w)
{
    static const uint16_t one = 1;
    if (*(const unsigned char *)&one) {
        uint64_t v;
        memcpy(&v, words + 8 * w, 8);
        return v;
    }
    return rd_le(words + 8 * w, 8);
}

/* Version 3: the 64 bits of the bit array from bit p (the array is followed by a zero
 * word, so the next word always exists). */
static uint64_t window(const unsigned char *words, uint64_t p)
{
    uint64_t w = p >> 6;
    unsigned off = (unsigned)(p & 63);
    uint64_t v = word(words, w) >> off;
    if (off)
        v |= word(words, w + 1) << (64 - off);
    return v;
}

/* Version 3, context function 1 ("threats and centre", FORMATS.md): the opponent's
 * playable wins, each player's winning cells, odd/even threats, centre stones. */
static uint32_t threats_and_centre(const geometry *g, uint64_t first, uint64_t mask)
{
    uint64_t second = first ^ mask;
    uint64_t a = winning_cells(g, first, mask), b = winning_cells(g, second, mask);
    uint64_t threat = popcount64(mask) % 2 == 0 ? b : a;
    int f = popcount64(threat & ((mask + g->bottom) & g->board));
    int ta = popcount64(a), tb = popcount64(b);
    int oa = popcount64(a & g->odd), ob = popcount64(b & (g->board ^ g->odd));
    uint64_t centre = g->centre;
    uint32_t base = centre_base(g->width, g->height);
    uint32_t t = (uint32_t)(4 * (ta < 3 ? ta : 3) + (tb < 3 ? tb : 3));
    uint32_t o = (uint32_t)(3 * (oa < 2 ? oa : 2) + (ob < 2 ? ob : 2));
    return (((uint32_t)(f < 2 ? f : 2) * 16 + t) * 9 + o) * base * base +
           (uint32_t)popcount64(first & centre) * base + (uint32_t)popcount64(second & centre);
}

/* Version 3: the value index of a book position, or -1 (a damaged file). */
static int decode_index(const c4book *book, const geometry *g, uint64_t first, uint64_t mask,
                        uint64_t c0, uint64_t c1, uint64_t c2)
{
    /* the bit array's windows first: their loads overlap the context's computation */
    uint64_t x = window(book->payload, c0) ^ window(book->payload, c1) ^ window(book->payload, c2);
    uint32_t context = book->context_function ? threats_and_centre(g, first, mask) : 0;
    int32_t u = book->code_of_context[context];
    if (u < 0)
        return -1; /* a context no stored position has */
    const uint16_t *limit = book->codes + 32 * (uint32_t)u; /* one cache line */
    const uint16_t *base = limit + 16;
    const unsigned char *values = book->code_values + (uint32_t)u * (uint32_t)book->value_count;
    if (limit[0] == 0)
        return values[0]; /* one value: no codeword */
    /* the codeword's first bit is bit 0 of x: reverse the low 15 bits, so that the
     * codeword stands left-aligned in a 15-bit number; its length is one more than the
     * limits it reaches (the code is complete: every 15 bits start a codeword) */
    uint32_t r = (uint32_t)(x & 0x7FFF) << 1;
    r = ((r >> 1) & 0x5555) | ((r & 0x5555) << 1);
    r = ((r >> 2) & 0x3333) | ((r & 0x3333) << 2);
    r = ((r >> 4) & 0x0F0F) | ((r & 0x0F0F) << 4);
    r = ((r >> 8) & 0x00FF) | ((r & 0x00FF) << 8);
    int l = 1;
    for (int j = 1; j < MAX_CODE; j++) /* past the longest codeword limit[j] = 2^15 > r */
        l += r >= limit[j];
    return values[(uint16_t)(base[l] + (r >> (MAX_CODE - l)))];
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
    geometry g = book_geometry(book);
    int status = position_status(&g, first, mask, book->plies);
    if (status > C4BOOK_WINS_AT_ONCE)
        return status;
    if (book->structure == 1 &&
        !reachable_from(&g, first, mask, book->line_first, book->line_mask) &&
        !reachable_from(&g, mirror(&g, first), mirror(&g, mask), book->line_first,
                        book->line_mask))
        return C4BOOK_OUT_OF_SCOPE;
    uint64_t key = canonical_key(&g, first, mask);
    if (book->structure == 2 && part_of(key, book->part_count) != book->part_index)
        return C4BOOK_OUT_OF_SCOPE;
    if (status == C4BOOK_WINS_AT_ONCE)
        return status;
    uint64_t h = mix(key, book->seed);
    uint64_t L = book->segment_length;
    uint64_t c0 = ((h >> 32) * (L * book->segment_count)) >> 32;
    uint64_t c1 = (c0 + L) ^ (h & (L - 1));
    uint64_t c2 = (c0 + 2 * L) ^ ((h >> 16) & (L - 1));
    int index;
    if (book->version == 3)
        index = decode_index(book, &g, first, mask, c0, c1, c2);
    else
        index = (int)(field(book->payload, c0, book->value_bits) ^
                      field(book->payload, c1, book->value_bits) ^
                      field(book->payload, c2, book->value_bits));
    if (index < 0 || index >= book->value_count)
        return C4BOOK_DAMAGED; /* cannot happen in an intact file */
    *value = book->values[index];
    return C4BOOK_FOUND;
}

int c4book_lookup_moves(const c4book *book, const char *moves, int *value)
{
    uint64_t first, mask;
    geometry g = book_geometry(book);
    if (moves_to_board(&g, moves, &first, &mask) != 0)
        return C4BOOK_BAD_MOVES;
    return c4book_lookup(book, first, mask, value);
}
