/*
 * c4book: a reader for openingbook's compact Connect-4 book format (.c4b).
 *
 * Plain C99, no dependencies beyond the C library. The format is specified in
 * docs/FORMATS.md ("The compact book format"); this reader follows that page.
 *
 *   c4book book;
 *   char err[256];
 *   if (c4book_open(&book, "book12.c4b", err, sizeof err) != 0) { puts(err); return 1; }
 *   int value;
 *   int status = c4book_lookup_moves(&book, "444444333333", &value);
 *   if (status == C4BOOK_FOUND) ...   value: see c4book.kind
 *   c4book_close(&book);
 *
 * Positions are two 64-bit bitboards in Pons' layout: cell (column c, row r),
 * both counted from 0 at the bottom left, is bit c * (H + 1) + r (c * 7 + r on the
 * 7x6 board); `first` holds the first player's stones, `mask` every stone. A book
 * says its board (c4book.width x c4book.height): any board with W * (H + 1) <= 64
 * and H <= 9.
 */
#ifndef C4BOOK_H
#define C4BOOK_H

#include <stddef.h>
#include <stdint.h>

/* Lookup status: C4BOOK_FOUND gives a value; C4BOOK_WINS_AT_ONCE is a position of
 * the book's ply where the side to move completes four with its next stone (never
 * stored: the side to move wins in 1 ply); every other status is a refusal.
 * C4BOOK_DAMAGED: the table gave an index past the value table (version 2), or the
 * position's context has no code (version 3): only a damaged file does, and the
 * CRC-32 checked at open makes it unlikely. */
enum {
    C4BOOK_FOUND = 0,
    C4BOOK_WINS_AT_ONCE = 1,
    C4BOOK_WRONG_PLY = 2,
    C4BOOK_NOT_A_BOARD = 3,
    C4BOOK_STONE_COUNTS = 4,
    C4BOOK_HAS_FOUR = 5,
    C4BOOK_UNREACHABLE = 6,
    C4BOOK_OUT_OF_SCOPE = 7,
    C4BOOK_BAD_MOVES = 8,
    C4BOOK_DAMAGED = 9
};

/* Value kinds: what the value of a found position means. */
enum {
    C4BOOK_KIND_WDL = 0,      /* +1 first player wins, 0 draw, -1 second player wins */
    C4BOOK_KIND_DISTANCE = 1, /* 100-d: first player wins in d plies; d-100: second; 0 draw */
    C4BOOK_KIND_SCORE = 2     /* Pons score of the side to move */
};

typedef struct {
    unsigned char *data; /* the whole file */
    size_t size;
    int version;       /* 2 or 3 */
    int width, height; /* the board */
    int plies;
    int kind;
    int structure; /* 0 complete, 1 scoped (the positions under the scope line), 2 a part */
    int value_bits;       /* version 2: bits per value field (version 3: 0) */
    int longest_code;     /* version 3: K, the longest codeword (version 2: 0) */
    int context_function; /* version 3: 0 none, 1 threats and centre (version 2: 0) */
    uint64_t positions;
    uint64_t seed;
    uint32_t segment_length;
    uint32_t segment_count;
    int value_count;
    int values[256];
    char scope[256]; /* the line of a scoped book, "i/n" of a part ("" when complete) */
    uint64_t line_first, line_mask; /* the scope line's position */
    uint32_t part_index, part_count; /* a part: part i of n */
    const unsigned char *payload; /* version 2: the table; version 3: the bit array */
    uint64_t masks[4]; /* the board's bottom row, cells, odd rows, centre column(s) */
    /* version 3, the codes: context -> code number (-1: not used); per code 32 entries,
     * the first codeword of each length 0..15 then the count of each length (count 0:
     * the values with a codeword, 0 for a one-value context); per code its value
     * indices by (length, index) */
    uint32_t context_space;
    int32_t *code_of_context;
    uint16_t *codes;
    unsigned char *code_values;
} c4book;

/* Read and check a book of version 2 or 3 (header fields, sizes, the CRC-32 over header
 * and payload, version 3's code section). 0 on success; else -1 with a one-line message
 * in err (the book needs no c4book_close then). */
int c4book_open(c4book *book, const char *path, char *err, size_t errlen);
void c4book_close(c4book *book);

/* Status (C4BOOK_*) of a position; on C4BOOK_FOUND *value is the stored value. */
int c4book_lookup(const c4book *book, uint64_t first, uint64_t mask, int *value);

/* The same for a position given as 1-based column digits ("4453"), or as column
 * numbers separated by commas ("10,1,12": any board; needed beyond 9 columns). */
int c4book_lookup_moves(const c4book *book, const char *moves, int *value);

/* The position-model check alone (C4BOOK_FOUND for a book position of `plies`), 7x6. */
int c4book_position_status(uint64_t first, uint64_t mask, int plies);

/* The same on a board of width x height. */
int c4book_board_position_status(uint64_t first, uint64_t mask, int plies, int width, int height);

/* The positions of a complete book of `plies` on a board of width x height (one per mirror
 * pair), or 0 where this reader does not know the count (boards under 4 x 4, and from a
 * board's first ply of more than 5,000,000 positions on); c4book_open refuses a complete
 * book whose header says another count. */
uint64_t c4book_complete_positions(int width, int height, int plies);

#endif
