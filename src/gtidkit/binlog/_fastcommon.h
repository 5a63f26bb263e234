/* What the two compiled hot loops of `gtidkit binlog show` share (_scriptfast.c: the text listing; _jsonfast.c:
 * --json): the event header's constants, CRC32 (the slice-by-8 table of zlib's polynomial, as the binlog's
 * checksum footer uses it: binlog_checksum=CRC32), the growable output buffer and the little-endian readers.
 * Included by each .c file once (every definition is static). Written for gtidkit; no MySQL code.
 */
#ifndef GTIDKIT_FASTCOMMON_H
#define GTIDKIT_FASTCOMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define OUT_LIMIT (1 << 20) /* bytes written before a run returns to Python */
#define HEADER_LEN 19       /* the v4 event header (libbinlogevents LOG_EVENT_HEADER_LEN) */
#define T_QUERY 2
#define T_XID 16
#define T_TABLE_MAP 19
#define T_GTID 33
#define T_ANON_GTID 34

typedef unsigned char uchar;

static const char HEXD[] = "0123456789abcdef";

/* ------------------------------------------------------------------------------------------------ CRC32 */
static uint32_t crc_table[8][256];

static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = crc_table[0][i];
        for (int t = 1; t < 8; t++) {
            c = crc_table[0][c & 0xff] ^ (c >> 8);
            crc_table[t][i] = c;
        }
    }
}

static uint32_t crc32_of(const uchar *p, Py_ssize_t n) {
    uint32_t c = 0xFFFFFFFFu;
    while (n >= 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
            crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
            crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n-- > 0) c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

typedef struct {
    char *p;
    Py_ssize_t n, cap;
} Buf;

static int buf_reserve(Buf *b, Py_ssize_t more) {
    if (b->n + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->n + more) cap *= 2;
    char *q = PyMem_Realloc(b->p, (size_t)cap);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = q;
    b->cap = cap;
    return 0;
}

static inline void put(Buf *b, const char *s, Py_ssize_t n) {
    memcpy(b->p + b->n, s, (size_t)n);
    b->n += n;
}
#define PUTS(b, lit) put((b), (lit), (Py_ssize_t)(sizeof(lit) - 1))
#define PUTC(b, c) ((b)->p[(b)->n++] = (char)(c))

#define PUTC(b, c) ((b)->p[(b)->n++] = (char)(c))

static inline void put_u64(Buf *b, uint64_t v) {
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(b, tmp + i, 24 - i);
}

static inline void put_i64(Buf *b, int64_t v) {
    if (v < 0) {
        PUTC(b, '-');
        put_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(b, (uint64_t)v);
    }
}

static inline uint32_t u16le(const uchar *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t u32le(const uchar *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t uNle(const uchar *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
#endif
