/* The compiled hot loop of `gtidkit binlog show --json` (optional: the pure-Python loop writes the same bytes;
 * tests/binlog/test_jsonfast.py compares the two on every fixture binlog and on generated binlogs of every column
 * type the row-image codec reads).
 *
 * run() writes one JSON object per event (the text json.JSONEncoder gives for gtidkit.cli.binlog_cmd.event_json:
 * ", " and ": " separators, ensure_ascii) for a run of the common events of a row-based binlog -- Gtid /
 * Anonymous_gtid (untagged 5.7.5+ layout), Query, Xid, Table_map and Write/Update/Delete rows v1/v2 with their
 * row values decoded with the Table_map's metadata -- straight from the read buffer, verifying CRC32 footers. It
 * stops before the first event it does not take (any other type, a layout or a value it does not read: JSON
 * columns, partial JSON updates, old temporal types, malformed bodies...), at the end of the buffer, or once
 * about OUT_LIMIT bytes are written; Python then decodes that event (and raises the precise error, if any).
 *
 * Table_maps are shared with Python through the dict `maps` (table id -> the Table_map event's bytes when this
 * loop read it, or a tuple when Python did: rows events of such a table are left to Python).
 *
 * Layouts: libbinlogevents (control_events.cpp, rows_event.cpp, statement_events.cpp); value packing: MySQL's
 * Field::pack (sql/field.cc), decimal2bin (strings/decimal.cc), my_*_packed_to_binary (mysys/my_time.cc).
 * Written for gtidkit; no MySQL code.
 */
#include "_fastcommon.h"

#define MAX_COLUMNS 4096

/* ------------------------------------------------------------------------------------------------ output */
/* handlers return 1 (written), 0 (not taken: Python decodes the event) or -1 (a Python exception is set) */
#define RESERVE(b, k)                                \
    do {                                             \
        if (buf_reserve((b), (k)) < 0) return -1;    \
    } while (0)
#define DECLINE 0

/* v zero-padded to at least `width` digits (Python's f"{v:0{width}d}" of a non-negative int) */
static inline void put_padded(Buf *b, uint64_t v, int width) {
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (24 - i < width) tmp[--i] = '0';
    put(b, tmp + i, 24 - i);
}

/* "." and the first fsp characters of f"{us:06d}" (Python's _fmt_dt / _time_text); nothing when fsp is 0 */
static inline void put_frac(Buf *b, uint64_t us, int fsp) {
    if (!fsp) return;
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + us % 10);
        us /= 10;
    } while (us);
    while (24 - i < 6) tmp[--i] = '0';
    PUTC(b, '.');
    put(b, tmp + i, fsp < 24 - i ? fsp : 24 - i);
}

static inline uint64_t uNbe(const uchar *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

/* a net_store_length integer at *pp (< e); 0 when truncated or its first byte is 251 / 255 (Cursor.packed_int) */
static int packed_int(const uchar **pp, const uchar *e, uint64_t *v) {
    const uchar *p = *pp;
    if (p >= e) return 0;
    unsigned first = *p;
    int w;
    if (first < 251) {
        *v = first;
        *pp = p + 1;
        return 1;
    }
    w = first == 252 ? 2 : first == 253 ? 3 : first == 254 ? 8 : -1;
    if (w < 0 || e - p < 1 + w) return 0;
    *v = uNle(p + 1, w);
    *pp = p + 1 + w;
    return 1;
}

/* ------------------------------------------------------------------------------------------------ JSON text */
/* the length of the valid UTF-8 sequence at s (Python's strict decoder: no overlongs, no surrogates, at most
   U+10FFFF) and its code point, or 0 */
static inline int utf8_seq(const uchar *s, const uchar *e, uint32_t *cp) {
    uint32_t c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2) return 0;
    if (c < 0xE0) {
        if (e - s < 2 || (s[1] & 0xC0) != 0x80) return 0;
        *cp = (c & 0x1F) << 6 | (s[1] & 0x3F);
        return 2;
    }
    if (c < 0xF0) {
        if (e - s < 3) return 0;
        uint32_t c1 = s[1];
        if (c == 0xE0 ? (c1 < 0xA0 || c1 > 0xBF) : c == 0xED ? (c1 < 0x80 || c1 > 0x9F) : (c1 & 0xC0) != 0x80)
            return 0;
        if ((s[2] & 0xC0) != 0x80) return 0;
        *cp = (c & 0x0F) << 12 | (c1 & 0x3F) << 6 | (s[2] & 0x3F);
        return 3;
    }
    if (c < 0xF5) {
        if (e - s < 4) return 0;
        uint32_t c1 = s[1];
        if (c == 0xF0 ? (c1 < 0x90 || c1 > 0xBF) : c == 0xF4 ? (c1 < 0x80 || c1 > 0x8F) : (c1 & 0xC0) != 0x80)
            return 0;
        if ((s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        *cp = (c & 0x07) << 18 | (c1 & 0x3F) << 12 | (s[2] & 0x3F) << 6 | (s[3] & 0x3F);
        return 4;
    }
    return 0;
}

static inline void put_u4(Buf *b, uint32_t v) {
    PUTS(b, "\\u");
    PUTC(b, HEXD[(v >> 12) & 15]);
    PUTC(b, HEXD[(v >> 8) & 15]);
    PUTC(b, HEXD[(v >> 4) & 15]);
    PUTC(b, HEXD[v & 15]);
}

/* one code point as json's ensure_ascii writes it (py_encode_basestring_ascii) */
static inline void put_cp(Buf *b, uint32_t c) {
    if (c >= 0x20 && c <= 0x7E) {
        if (c == '"' || c == '\\') PUTC(b, '\\');
        PUTC(b, c);
        return;
    }
    switch (c) {
        case '\n': PUTS(b, "\\n"); return;
        case '\r': PUTS(b, "\\r"); return;
        case '\t': PUTS(b, "\\t"); return;
        case '\b': PUTS(b, "\\b"); return;
        case '\f': PUTS(b, "\\f"); return;
        default: break;
    }
    if (c < 0x10000) {
        put_u4(b, c);
    } else {
        uint32_t v = c - 0x10000;
        put_u4(b, 0xD800 | (v >> 10));
        put_u4(b, 0xDC00 | (v & 0x3FF));
    }
}

/* room for any JSON string of n source bytes (a byte is at most 6 characters: a \u escape with 4 hex digits) */
#define STR_ROOM(n) (6 * (Py_ssize_t)(n) + 16)

/* the JSON string of bytes decoded as UTF-8 with surrogateescape (names, statements) */
static void put_str_se(Buf *b, const uchar *s, Py_ssize_t n) {
    const uchar *e = s + n;
    PUTC(b, '"');
    while (s < e) {
        uint32_t c = *s;
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            PUTC(b, c);
            s++;
            continue;
        }
        int k = utf8_seq(s, e, &c);
        if (k == 0) {
            put_u4(b, 0xDC00 | *s); /* surrogateescape: the byte as U+DC80..U+DCFF */
            s++;
        } else {
            put_cp(b, c);
            s += k;
        }
    }
    PUTC(b, '"');
}

/* a string column's value: its text when the bytes are UTF-8, else {"hex": "..."} (binlog_cmd._value_json) */
static void put_value_bytes(Buf *b, const uchar *s, Py_ssize_t n) {
    const uchar *e = s + n, *q = s;
    uint32_t c;
    while (q < e) {
        if (*q < 0x80) {
            q++;
            continue;
        }
        int k = utf8_seq(q, e, &c);
        if (k == 0) break;
        q += k;
    }
    if (q < e) {
        PUTS(b, "{\"hex\": \"");
        for (Py_ssize_t i = 0; i < n; i++) {
            PUTC(b, HEXD[s[i] >> 4]);
            PUTC(b, HEXD[s[i] & 15]);
        }
        PUTS(b, "\"}");
        return;
    }
    put_str_se(b, s, n); /* valid UTF-8: no byte is escaped as a surrogate */
}

/* a float as json writes it: float.__repr__, NaN / Infinity / -Infinity */
static int put_double(Buf *b, double v) {
    if (v != v) {
        PUTS(b, "NaN");
        return 1;
    }
    if (v == Py_HUGE_VAL) {
        PUTS(b, "Infinity");
        return 1;
    }
    if (v == -Py_HUGE_VAL) {
        PUTS(b, "-Infinity");
        return 1;
    }
    char *s = PyOS_double_to_string(v, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (s == NULL) return -1;
    size_t n = strlen(s);
    if (n < 40) put(b, s, (Py_ssize_t)n);
    PyMem_Free(s);
    return n < 40 ? 1 : DECLINE;
}

/* ------------------------------------------------------------------------------------------------ tables */
/* Metadata bytes per column type (Table_map_log_event::save_field_metadata; rows.METADATA_WIDTHS), -1 unknown */
static signed char META_WIDTH[256];

static void meta_init(void) {
    memset(META_WIDTH, -1, sizeof META_WIDTH);
    static const int zero[] = {0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++) META_WIDTH[zero[i]] = 0;
    static const int one[] = {4, 5, 17, 18, 19, 242, 245, 249, 250, 251, 252, 255};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) META_WIDTH[one[i]] = 1;
    static const int two[] = {15, 16, 246, 247, 248, 253, 254};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++) META_WIDTH[two[i]] = 2;
}

static inline int is_numeric(int t) {
    return t == 1 || t == 2 || t == 3 || t == 8 || t == 9 || t == 4 || t == 5 || t == 246;
}

typedef struct {
    uint64_t table_id;
    const uchar *db, *tbl, *types, *meta, *opt;
    int dblen, tlen;
    Py_ssize_t ncols, metalen, optlen;
} TMap;

/* a Table_map body [p, e) with the 8-byte post-header (TableMapEvent.decode); 0 when it does not decode */
static int parse_tmap(const uchar *p, const uchar *e, TMap *m) {
    if (e - p < 9) return 0;
    m->table_id = uNle(p, 6);
    const uchar *q = p + 8;
    m->dblen = q[0];
    m->db = q + 1;
    q += 1 + m->dblen;
    if (q >= e || *q != 0) return 0;
    q++;
    if (q >= e) return 0;
    m->tlen = q[0];
    m->tbl = q + 1;
    q += 1 + m->tlen;
    if (q >= e || *q != 0) return 0;
    q++;
    uint64_t n, ml;
    if (!packed_int(&q, e, &n) || n > MAX_COLUMNS || (uint64_t)(e - q) < n) return 0;
    m->ncols = (Py_ssize_t)n;
    m->types = q;
    q += n;
    if (!packed_int(&q, e, &ml) || (uint64_t)(e - q) < ml) return 0;
    m->metalen = (Py_ssize_t)ml;
    m->meta = q;
    q += ml;
    if (e - q < (m->ncols + 7) / 8) return 0;
    q += (m->ncols + 7) / 8;
    m->opt = q;
    m->optlen = e - q;
    return 1;
}

/* the optional-metadata fields (type, value); 0 when one runs past the block */
static int opt_next(const uchar **pp, const uchar *e, int *kind, const uchar **v, Py_ssize_t *vlen) {
    const uchar *p = *pp;
    uint64_t n;
    *kind = p[0];
    p++;
    if (!packed_int(&p, e, &n) || (uint64_t)(e - p) < n) return 0;
    *v = p;
    *vlen = (Py_ssize_t)n;
    *pp = p + n;
    return 1;
}

typedef struct {
    Py_ssize_t meta_at[MAX_COLUMNS];
    uchar unsig[MAX_COLUMNS];
} Specs;

/* column_specs(): each column's metadata offset and signedness; 0 when they do not parse */
static int column_specs(const TMap *m, Specs *s) {
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < m->ncols; i++) {
        int w = META_WIDTH[m->types[i]];
        if (w < 0) return 0;
        s->meta_at[i] = at;
        at += w;
        s->unsig[i] = 0;
    }
    if (at != m->metalen) return 0;
    const uchar *p = m->opt, *e = m->opt + m->optlen;
    while (p < e) {
        int kind;
        const uchar *v;
        Py_ssize_t vlen;
        if (!opt_next(&p, e, &kind, &v, &vlen)) return 0;
        if (kind != 1) continue; /* SIGNEDNESS: one bit per numeric column, most significant first */
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i < m->ncols; i++) {
            if (!is_numeric(m->types[i])) continue;
            if (k / 8 < vlen) s->unsig[i] = (v[k / 8] & (0x80 >> (k % 8))) != 0;
            k++;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------------ values */
static const int DIG2BYTES[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

/* a DECIMAL(prec, scale) value as its exact text (decode_decimal, then format(value, "f")) */
static int put_decimal(Buf *b, const uchar **pp, const uchar *e, int prec, int scale) {
    if (prec < 1 || prec > 65 || scale > 30 || scale > prec) return DECLINE;
    int intg = prec - scale, intg0 = intg / 9, intg0x = intg % 9, frac0 = scale / 9, frac0x = scale % 9;
    int size = intg0 * 4 + DIG2BYTES[intg0x] + frac0 * 4 + DIG2BYTES[frac0x];
    if (e - *pp < size) return DECLINE;
    uchar raw[40];
    memcpy(raw, *pp, (size_t)size);
    *pp += size;
    int neg = !(raw[0] & 0x80);
    raw[0] ^= 0x80;
    if (neg)
        for (int i = 0; i < size; i++) raw[i] ^= 0xFF;
    char digits[160];
    int nd = 0, at = 0;
    /* the integer part: each group zero-padded to its digits, then the leading zeros dropped */
    if (intg0x) {
        int w = DIG2BYTES[intg0x];
        uint64_t v = uNbe(raw, w);
        at += w;
        nd += snprintf(digits + nd, sizeof digits - (size_t)nd, "%0*llu", intg0x, (unsigned long long)v);
    }
    for (int g = 0; g < intg0; g++) {
        uint64_t v = uNbe(raw + at, 4);
        at += 4;
        nd += snprintf(digits + nd, sizeof digits - (size_t)nd, "%09llu", (unsigned long long)v);
    }
    int lead = 0;
    while (lead < nd - 1 && digits[lead] == '0') lead++;
    PUTC(b, '"');
    if (neg) PUTC(b, '-');
    if (nd == 0)
        PUTC(b, '0');
    else
        put(b, digits + lead, nd - lead);
    if (scale) {
        PUTC(b, '.');
        char f[160];
        int nf = 0;
        for (int g = 0; g < frac0; g++) {
            uint64_t v = uNbe(raw + at, 4);
            at += 4;
            nf += snprintf(f + nf, sizeof f - (size_t)nf, "%09llu", (unsigned long long)v);
        }
        if (frac0x) {
            int w = DIG2BYTES[frac0x];
            uint64_t v = uNbe(raw + at, w);
            nf += snprintf(f + nf, sizeof f - (size_t)nf, "%0*llu", frac0x, (unsigned long long)v);
        }
        put(b, f, nf);
    }
    PUTC(b, '"');
    return 1;
}

static inline int frac_load(const uchar **pp, const uchar *e, int fsp, uint64_t *us) {
    int n = (fsp + 1) / 2;
    if (e - *pp < n) return 0;
    uint64_t v = uNbe(*pp, n);
    *pp += n;
    *us = v * (n == 1 ? 10000 : n == 2 ? 100 : 1);
    return 1;
}

static void put_ymd_hms(Buf *b, uint64_t y, int mo, int d, int h, int mi, int s) {
    put_padded(b, y, 4);
    PUTC(b, '-');
    put_padded(b, (uint64_t)mo, 2);
    PUTC(b, '-');
    put_padded(b, (uint64_t)d, 2);
    PUTC(b, ' ');
    put_padded(b, (uint64_t)h, 2);
    PUTC(b, ':');
    put_padded(b, (uint64_t)mi, 2);
    PUTC(b, ':');
    put_padded(b, (uint64_t)s, 2);
}

/* one non-NULL value of column i (row_image.decode_value + binlog_cmd._value_json) */
static int put_value(Buf *b, const uchar **pp, const uchar *e, int t, const uchar *meta, int unsig) {
    const uchar *p = *pp;
    Py_ssize_t left = e - p;
    switch (t) {
        case 1: case 2: case 9: case 3: case 8: { /* TINY SHORT INT24 LONG LONGLONG */
            int w = t == 1 ? 1 : t == 2 ? 2 : t == 9 ? 3 : t == 3 ? 4 : 8;
            if (left < w) return DECLINE;
            uint64_t v = uNle(p, w);
            *pp = p + w;
            RESERVE(b, 24);
            if (unsig) {
                put_u64(b, v);
            } else {
                int sh = 64 - 8 * w;
                put_i64(b, sh ? (int64_t)(v << sh) >> sh : (int64_t)v);
            }
            return 1;
        }
        case 4: { /* FLOAT */
            if (left < 4) return DECLINE;
            uint32_t bits = u32le(p);
            float f;
            memcpy(&f, &bits, 4);
            *pp = p + 4;
            RESERVE(b, 48);
            return put_double(b, (double)f);
        }
        case 5: { /* DOUBLE */
            if (left < 8) return DECLINE;
            uint64_t bits = uNle(p, 8);
            double d;
            memcpy(&d, &bits, 8);
            *pp = p + 8;
            RESERVE(b, 48);
            return put_double(b, d);
        }
        case 246: /* NEWDECIMAL */
            RESERVE(b, 96);
            return put_decimal(b, pp, e, meta[0], meta[1]);
        case 15: /* VARCHAR */
        case 254: { /* STRING (CHAR, BINARY; ENUM / SET) */
            Py_ssize_t maxlen;
            if (t == 254) {
                if (meta[0] == 247 || meta[0] == 248) {
                    int w = meta[1];
                    if (w > 8 || left < w) return DECLINE;
                    *pp = p + w;
                    RESERVE(b, 24);
                    put_u64(b, uNle(p, w));
                    return 1;
                }
                int m0 = meta[0], m1 = meta[1];
                maxlen = (m0 & 0x30) != 0x30 ? (m1 | (((m0 & 0x30) ^ 0x30) << 4)) : m1;
            } else {
                maxlen = (Py_ssize_t)u16le(meta);
            }
            int w = maxlen > 255 ? 2 : 1;
            if (left < w) return DECLINE;
            Py_ssize_t n = w == 2 ? (Py_ssize_t)u16le(p) : p[0];
            if (left - w < n) return DECLINE;
            *pp = p + w + n;
            RESERVE(b, STR_ROOM(n));
            put_value_bytes(b, p + w, n);
            return 1;
        }
        case 252: /* BLOB / TEXT */
        case 255: { /* GEOMETRY */
            int w = meta[0];
            if (w < 1 || w > 4 || left < w) return DECLINE;
            uint64_t n = uNle(p, w);
            if ((uint64_t)(left - w) < n) return DECLINE;
            *pp = p + w + n;
            RESERVE(b, STR_ROOM(n));
            put_value_bytes(b, p + w, (Py_ssize_t)n);
            return 1;
        }
        case 10: { /* DATE */
            if (left < 3) return DECLINE;
            uint32_t v = (uint32_t)uNle(p, 3);
            *pp = p + 3;
            RESERVE(b, 32);
            PUTC(b, '"');
            put_padded(b, v >> 9, 4);
            PUTC(b, '-');
            put_padded(b, (v >> 5) & 0xF, 2);
            PUTC(b, '-');
            put_padded(b, v & 0x1F, 2);
            PUTC(b, '"');
            return 1;
        }
        case 18: { /* DATETIME2 */
            int fsp = meta[0];
            if (fsp > 6 || left < 5) return DECLINE;
            int64_t packed = (int64_t)uNbe(p, 5) - 0x8000000000LL;
            if (packed < 0) return DECLINE;
            const uchar *q = p + 5;
            uint64_t us;
            if (!frac_load(&q, e, fsp, &us)) return DECLINE;
            *pp = q;
            uint64_t ymd = (uint64_t)packed >> 17, hms = (uint64_t)packed & 0x1FFFF, ym = ymd >> 5;
            RESERVE(b, 48);
            PUTC(b, '"');
            put_ymd_hms(b, ym / 13, (int)(ym % 13), (int)(ymd & 0x1F), (int)(hms >> 12), (int)((hms >> 6) & 0x3F),
                        (int)(hms & 0x3F));
            put_frac(b, us, fsp);
            PUTC(b, '"');
            return 1;
        }
        case 17: { /* TIMESTAMP2 (UTC) */
            int fsp = meta[0];
            if (fsp > 6 || left < 4) return DECLINE;
            uint32_t secs = (uint32_t)uNbe(p, 4);
            const uchar *q = p + 4;
            uint64_t us;
            if (!frac_load(&q, e, fsp, &us)) return DECLINE;
            *pp = q;
            RESERVE(b, 48);
            PUTC(b, '"');
            if (secs == 0) {
                put_ymd_hms(b, 0, 0, 0, 0, 0, 0);
            } else {
                time_t tt = (time_t)secs;
                struct tm tm;
                if (gmtime_r(&tt, &tm) == NULL) return DECLINE;
                put_ymd_hms(b, (uint64_t)(tm.tm_year + 1900), tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                            tm.tm_sec);
            }
            put_frac(b, us, fsp);
            PUTC(b, '"');
            return 1;
        }
        case 19: { /* TIME2 */
            int fsp = meta[0];
            if (fsp > 6) return DECLINE;
            int64_t packed;
            if (fsp >= 5) {
                if (left < 6) return DECLINE;
                packed = (int64_t)uNbe(p, 6) - 0x800000000000LL;
                *pp = p + 6;
            } else {
                if (left < 3) return DECLINE;
                int64_t intpart = (int64_t)uNbe(p, 3) - 0x800000;
                if (fsp == 0) {
                    packed = intpart * (1LL << 24);
                    *pp = p + 3;
                } else {
                    int nb = fsp >= 3 ? 2 : 1;
                    int64_t unit = fsp >= 3 ? 100 : 10000;
                    if (left < 3 + nb) return DECLINE;
                    int64_t frac = (int64_t)uNbe(p + 3, nb);
                    if (intpart < 0 && frac) {
                        intpart += 1;
                        frac -= 1LL << (8 * nb);
                    }
                    packed = intpart * (1LL << 24) + frac * unit;
                    *pp = p + 3 + nb;
                }
            }
            int neg = packed < 0;
            uint64_t tmp = neg ? (uint64_t)0 - (uint64_t)packed : (uint64_t)packed;
            uint64_t hms = tmp >> 24, us = tmp & 0xFFFFFF;
            RESERVE(b, 64);
            PUTC(b, '"');
            if (neg) PUTC(b, '-');
            put_padded(b, (hms >> 12) % 1024, 2);
            PUTC(b, ':');
            put_padded(b, (hms >> 6) % 64, 2);
            PUTC(b, ':');
            put_padded(b, hms % 64, 2);
            put_frac(b, us, fsp);
            PUTC(b, '"');
            return 1;
        }
        case 13: { /* YEAR */
            if (left < 1) return DECLINE;
            *pp = p + 1;
            RESERVE(b, 8);
            put_u64(b, p[0] ? (uint64_t)p[0] + 1900 : 0);
            return 1;
        }
        case 16: { /* BIT */
            int w = meta[1] + (meta[0] ? 1 : 0);
            if (w > 8 || left < w) return DECLINE;
            *pp = p + w;
            RESERVE(b, 24);
            put_u64(b, uNbe(p, w));
            return 1;
        }
        default: /* JSON, VECTOR, the pre-5.6 temporal types, ...: Python decodes the event */
            return DECLINE;
    }
}

/* one row image: the columns-present flags, a NULL bitmap over the present columns, the non-NULL values */
static int put_image(Buf *b, const uchar **pp, const uchar *e, const TMap *m, const Specs *s, const uchar *present) {
    Py_ssize_t n = m->ncols, k = 0;
    for (Py_ssize_t i = 0; i < n; i++) k += (present[i / 8] >> (i % 8)) & 1;
    const uchar *nulls = *pp;
    if (e - nulls < (k + 7) / 8) return DECLINE;
    *pp += (k + 7) / 8;
    RESERVE(b, 8 + 6 * n);
    PUTC(b, '[');
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i) {
            RESERVE(b, 8);
            PUTS(b, ", ");
        }
        if (!((present[i / 8] >> (i % 8)) & 1)) {
            RESERVE(b, 8);
            PUTS(b, "null");
            continue;
        }
        if ((nulls[j / 8] >> (j % 8)) & 1) {
            RESERVE(b, 8);
            PUTS(b, "null");
        } else {
            int r = put_value(b, pp, e, m->types[i], m->meta + s->meta_at[i], s->unsig[i]);
            if (r <= 0) return r;
        }
        j++;
    }
    RESERVE(b, 4);
    PUTC(b, ']');
    return 1;
}

/* ------------------------------------------------------------------------------------------------ events */
typedef struct {
    PyObject *names;  /* tuple of 256 bytes: each type's JSON-quoted name */
    const char *prefix; /* '{"file": "<path>", "pos": ' */
    Py_ssize_t prefix_len;
    PyObject *maps;
    int foot;
    Specs *specs;
} Ctx;

static int put_header(Buf *b, const Ctx *c, uint64_t pos, const uchar *ev, Py_ssize_t size) {
    PyObject *name = PyTuple_GET_ITEM(c->names, ev[4]);
    if (!PyBytes_Check(name)) return DECLINE;
    RESERVE(b, c->prefix_len + PyBytes_GET_SIZE(name) + 320);
    put(b, c->prefix, c->prefix_len);
    put_u64(b, pos);
    PUTS(b, ", \"end_pos\": ");
    put_u64(b, pos + (uint64_t)size);
    PUTS(b, ", \"type\": ");
    put(b, PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name));
    PUTS(b, ", \"type_code\": ");
    put_u64(b, ev[4]);
    PUTS(b, ", \"timestamp\": ");
    put_u64(b, u32le(ev));
    PUTS(b, ", \"server_id\": ");
    put_u64(b, u32le(ev + 5));
    PUTS(b, ", \"event_size\": ");
    put_u64(b, (uint64_t)size);
    PUTS(b, ", \"log_pos\": ");
    put_u64(b, u32le(ev + 13));
    PUTS(b, ", \"flags\": ");
    put_u64(b, u16le(ev + 17));
    PUTS(b, ", \"in_payload\": false");
    if (c->foot) {
        uint32_t crc = u32le(ev + size - 4);
        PUTS(b, ", \"crc32\": \"0x");
        for (int i = 7; i >= 0; i--) PUTC(b, HEXD[(crc >> (4 * i)) & 0xf]);
        PUTC(b, '"');
    }
    return 1;
}

static void put_uuid(Buf *b, const uchar *sid) {
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) PUTC(b, '-');
        PUTC(b, HEXD[sid[i] >> 4]);
        PUTC(b, HEXD[sid[i] & 15]);
    }
}

/* GtidEvent.decode of the 5.7.5+ untagged layout (post-header 42) */
static int gtid_event(Buf *b, const uchar *p, const uchar *e, int type) {
    if (e - p < 42) return DECLINE;
    int flags = p[0];
    const uchar *sid = p + 1;
    int64_t gno = (int64_t)uNle(p + 17, 8);
    if (p[25] != 2) return DECLINE; /* lt_type */
    int64_t lc = (int64_t)uNle(p + 26, 8), seq = (int64_t)uNle(p + 34, 8);
    int zero = 1;
    for (int i = 0; i < 16; i++) zero &= sid[i] == 0;
    int anonymous = gno == 0 && zero;
    if (anonymous ? type != T_ANON_GTID : (type != T_GTID || gno < 1 || gno > INT64_MAX - 1)) return DECLINE;
    const uchar *q = p + 42;
    int has_ts = 0, has_len = 0, has_ver = 0;
    uint64_t imm = 0, orig = 0, tlen = 0;
    uint32_t iv = 0, ov = 0;
    if (e - q >= 7) {
        has_ts = 1;
        imm = uNle(q, 7);
        q += 7;
        if (imm & (1ULL << 55)) {
            imm &= (1ULL << 55) - 1;
            if (e - q < 7) return DECLINE;
            orig = uNle(q, 7);
            q += 7;
        } else {
            orig = imm;
        }
        if (q < e) {
            has_len = 1;
            if (!packed_int(&q, e, &tlen)) return DECLINE;
            if (e - q >= 4) {
                has_ver = 1;
                iv = u32le(q);
                q += 4;
                if (iv & 0x80000000u) {
                    iv &= 0x7fffffffu;
                    if (e - q < 4) return DECLINE;
                    ov = u32le(q);
                } else {
                    ov = iv;
                }
            }
        }
    }
    RESERVE(b, 512);
    PUTS(b, ", \"gtid\": \"");
    if (anonymous) {
        PUTS(b, "ANONYMOUS");
    } else {
        put_uuid(b, sid);
        PUTC(b, ':');
        put_i64(b, gno);
    }
    PUTS(b, "\", \"last_committed\": ");
    put_i64(b, lc);
    PUTS(b, ", \"sequence_number\": ");
    put_i64(b, seq);
    if (flags & 1)
        PUTS(b, ", \"rbr_only\": false, \"immediate_commit_timestamp\": ");
    else
        PUTS(b, ", \"rbr_only\": true, \"immediate_commit_timestamp\": ");
    if (has_ts) put_u64(b, imm); else PUTS(b, "null");
    PUTS(b, ", \"original_commit_timestamp\": ");
    if (has_ts) put_u64(b, orig); else PUTS(b, "null");
    PUTS(b, ", \"transaction_length\": ");
    if (has_len) put_u64(b, tlen); else PUTS(b, "null");
    PUTS(b, ", \"immediate_server_version\": ");
    if (has_ver) put_u64(b, iv); else PUTS(b, "null");
    PUTS(b, ", \"original_server_version\": ");
    if (has_ver) put_u64(b, ov); else PUTS(b, "null");
    PUTC(b, '}');
    return 1;
}

/* QueryEvent.decode (post-header 13) */
static int query_event(Buf *b, const uchar *p, const uchar *e) {
    if (e - p < 13) return DECLINE;
    int dblen = p[8];
    const uchar *db = p + 13 + u16le(p + 11);
    if (db > e || e - db < dblen + 1 || db[dblen] != 0) return DECLINE;
    const uchar *q = db + dblen + 1;
    RESERVE(b, 128 + STR_ROOM(dblen) + STR_ROOM(e - q));
    PUTS(b, ", \"thread_id\": ");
    put_u64(b, u32le(p));
    PUTS(b, ", \"exec_time\": ");
    put_u64(b, u32le(p + 4));
    PUTS(b, ", \"error_code\": ");
    put_u64(b, u16le(p + 9));
    PUTS(b, ", \"database\": ");
    put_str_se(b, db, dblen);
    PUTS(b, ", \"query\": ");
    put_str_se(b, q, e - q);
    PUTC(b, '}');
    return 1;
}

/* Table_map: the fields of event_json and the column names (COLUMN_NAME optional metadata) */
static int table_map_event(Buf *b, const Ctx *c, const uchar *ev, Py_ssize_t size) {
    const uchar *p = ev + HEADER_LEN, *e = ev + size - c->foot;
    TMap m;
    if (!parse_tmap(p, e, &m)) return DECLINE;
    /* the names: the first COLUMN_NAME field; a malformed block leaves the event to Python */
    const uchar *names = NULL;
    Py_ssize_t names_len = 0;
    const uchar *o = m.opt, *oe = m.opt + m.optlen;
    while (o < oe) {
        int kind;
        const uchar *v;
        Py_ssize_t vlen;
        if (!opt_next(&o, oe, &kind, &v, &vlen)) return DECLINE;
        if (kind == 4 && names == NULL) {
            names = v;
            names_len = vlen;
        }
    }
    RESERVE(b, 160 + STR_ROOM(m.dblen) + STR_ROOM(m.tlen) + 5 * m.ncols + STR_ROOM(names_len));
    PUTS(b, ", \"table_id\": ");
    put_u64(b, m.table_id);
    PUTS(b, ", \"database\": ");
    put_str_se(b, m.db, m.dblen);
    PUTS(b, ", \"table\": ");
    put_str_se(b, m.tbl, m.tlen);
    PUTS(b, ", \"column_count\": ");
    put_u64(b, (uint64_t)m.ncols);
    PUTS(b, ", \"column_types\": [");
    for (Py_ssize_t i = 0; i < m.ncols; i++) {
        if (i) PUTS(b, ", ");
        put_u64(b, m.types[i]);
    }
    PUTC(b, ']');
    if (names != NULL) {
        PUTS(b, ", \"columns\": [");
        const uchar *q = names, *qe = names + names_len;
        int first = 1;
        while (q < qe) {
            uint64_t n;
            if (!packed_int(&q, qe, &n) || (uint64_t)(qe - q) < n) return DECLINE;
            if (!first) PUTS(b, ", ");
            first = 0;
            put_str_se(b, q, (Py_ssize_t)n);
            q += n;
        }
        PUTC(b, ']');
    }
    PUTC(b, '}');
    /* registered for the rows events that follow (and for Python's, which decode these bytes) */
    PyObject *key = PyLong_FromUnsignedLongLong(m.table_id);
    if (key == NULL) return -1;
    PyObject *raw = PyBytes_FromStringAndSize((const char *)ev, size);
    if (raw == NULL) {
        Py_DECREF(key);
        return -1;
    }
    int r = PyDict_SetItem(c->maps, key, raw);
    Py_DECREF(key);
    Py_DECREF(raw);
    return r < 0 ? -1 : 1;
}

/* Write/Update/Delete rows v1 (post-header 8) / v2 (10): the fields of event_json and the decoded rows */
static int rows_event(Buf *b, const Ctx *c, const uchar *ev, Py_ssize_t size, int type) {
    const uchar *p = ev + HEADER_LEN, *e = ev + size - c->foot;
    int v2 = type >= 30;
    int update = type == 24 || type == 31, insert = type == 23 || type == 30;
    if (e - p < (v2 ? 10 : 8)) return DECLINE;
    uint64_t table_id = uNle(p, 6);
    uint32_t rflags = u16le(p + 6);
    const uchar *q = p + 8;
    if (v2) {
        uint32_t extra = u16le(q);
        if (extra < 2 || e - q < (Py_ssize_t)extra) return DECLINE;
        q += extra;
    }
    uint64_t ncols;
    if (!packed_int(&q, e, &ncols)) return DECLINE;
    Py_ssize_t nb = (Py_ssize_t)((ncols + 7) / 8);
    if (ncols > MAX_COLUMNS || e - q < (update ? 2 : 1) * nb) return DECLINE;
    const uchar *before = q, *after = update ? q + nb : q;
    q += (update ? 2 : 1) * nb;
    PyObject *key = PyLong_FromUnsignedLongLong(table_id);
    if (key == NULL) return -1;
    PyObject *tm = PyDict_GetItemWithError(c->maps, key);
    Py_DECREF(key);
    if (tm == NULL && PyErr_Occurred()) return -1;
    if (tm != NULL && !PyBytes_Check(tm)) return DECLINE; /* a Table_map Python decoded: Python goes on */
    RESERVE(b, 96);
    PUTS(b, ", \"table_id\": ");
    put_u64(b, table_id);
    PUTS(b, ", \"rows_flags\": ");
    put_u64(b, rflags);
    PUTS(b, ", \"column_count\": ");
    put_u64(b, ncols);
    if (tm == NULL) {
        PUTC(b, '}');
        return 1;
    }
    const uchar *tp = (const uchar *)PyBytes_AS_STRING(tm);
    Py_ssize_t tsize = PyBytes_GET_SIZE(tm);
    TMap m;
    if (tsize < HEADER_LEN + c->foot || !parse_tmap(tp + HEADER_LEN, tp + tsize - c->foot, &m)) return DECLINE;
    if ((uint64_t)m.ncols != ncols || !column_specs(&m, c->specs)) return DECLINE;
    RESERVE(b, 64 + STR_ROOM(m.dblen) + STR_ROOM(m.tlen));
    PUTS(b, ", \"database\": ");
    put_str_se(b, m.db, m.dblen);
    PUTS(b, ", \"table\": ");
    put_str_se(b, m.tbl, m.tlen);
    PUTS(b, ", \"rows\": [");
    int first = 1;
    while (q < e) {
        RESERVE(b, 32);
        if (!first) PUTS(b, ", ");
        first = 0;
        int r;
        if (insert) {
            PUTS(b, "{\"after\": ");
            r = put_image(b, &q, e, &m, c->specs, after);
        } else {
            PUTS(b, "{\"before\": ");
            r = put_image(b, &q, e, &m, c->specs, before);
            if (r > 0 && update) {
                RESERVE(b, 16);
                PUTS(b, ", \"after\": ");
                r = put_image(b, &q, e, &m, c->specs, after);
            }
        }
        if (r <= 0) return r;
        RESERVE(b, 4);
        PUTC(b, '}');
    }
    RESERVE(b, 4);
    PUTS(b, "]}");
    return 1;
}

static PyObject *run(PyObject *self, PyObject *args) {
    Py_buffer view, ok, prefix;
    Py_ssize_t at;
    unsigned long long base;
    int footer, verify, skipping, gtid_py;
    PyObject *names, *maps;
    if (!PyArg_ParseTuple(args, "y*nKppy*Oy*O!pp", &view, &at, &base, &footer, &verify, &ok, &names, &prefix,
                          &PyDict_Type, &maps, &skipping, &gtid_py))
        return NULL;
    PyObject *result = NULL;
    Buf out = {NULL, 0, 0};
    Specs *specs = NULL;
    const uchar *buf = view.buf, *ok_t = ok.buf;
    Py_ssize_t len = view.len;
    int foot = footer ? 4 : 0;
    if (ok.len != 256 || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) != 256 || at < 0 || at > len) {
        PyErr_SetString(PyExc_ValueError, "run(): bad arguments");
        goto done;
    }
    specs = PyMem_Malloc(sizeof(Specs));
    if (specs == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Ctx c = {names, prefix.buf, prefix.len, maps, foot, specs};
    while (out.n < OUT_LIMIT && len - at >= HEADER_LEN) {
        const uchar *ev = buf + at;
        Py_ssize_t size = (Py_ssize_t)u32le(ev + 9);
        if (size < HEADER_LEN + foot || size > len - at) break;
        int t = ev[4];
        if (!ok_t[t]) break;
        if (gtid_py && (t == T_GTID || t == T_ANON_GTID)) break; /* GTID filters: Python decides */
        if (verify && foot && crc32_of(ev, size - 4) != u32le(ev + size - 4)) break;
        Py_ssize_t mark = out.n;
        uint64_t pos = base + (uint64_t)at;
        int r = put_header(&out, &c, pos, ev, size);
        if (r > 0) {
            const uchar *p = ev + HEADER_LEN, *e = ev + size - foot;
            if (t == T_GTID || t == T_ANON_GTID) {
                r = gtid_event(&out, p, e, t);
            } else if (t == T_QUERY) {
                r = query_event(&out, p, e);
            } else if (t == T_XID) {
                if (e - p != 8) {
                    r = DECLINE;
                } else if (buf_reserve(&out, 40) < 0) {
                    r = -1;
                } else {
                    PUTS(&out, ", \"xid\": ");
                    put_u64(&out, uNle(p, 8));
                    PUTC(&out, '}');
                }
            } else if (t == T_TABLE_MAP) {
                r = table_map_event(&out, &c, ev, size);
            } else if ((t >= 23 && t <= 25) || (t >= 30 && t <= 32)) {
                r = rows_event(&out, &c, ev, size, t);
            } else {
                r = DECLINE;
            }
        }
        if (r < 0) goto done;
        if (r == 0) {
            out.n = mark;
            break;
        }
        if (skipping) { /* a transaction the GTID filters leave out: nothing printed (its Table_maps count) */
            out.n = mark;
        } else {
            if (buf_reserve(&out, 1) < 0) goto done;
            PUTC(&out, '\n');
        }
        at += size;
    }
    {
        PyObject *data = PyBytes_FromStringAndSize(out.p ? out.p : "", out.n);
        if (data != NULL) result = Py_BuildValue("(nN)", at, data);
    }
done:
    PyMem_Free(out.p);
    PyMem_Free(specs);
    PyBuffer_Release(&view);
    PyBuffer_Release(&ok);
    PyBuffer_Release(&prefix);
    return result;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS,
     "run(buf, at, base, footer, verify, ok, names, prefix, maps, skipping, gtid_py) -> (next_at, text): the JSON "
     "lines of the common events from buf[at:] (see the module comment of _jsonfast.c); base: the file offset "
     "of buf[0]; ok: 256 bytes, 1 for the types whose layout this FDE gives the readers; names: 256 JSON-quoted "
     "type names; prefix: the line start up to the position; maps: table id -> Table_map bytes (or Python's); "
     "skipping: read the events but print nothing; gtid_py: stop before every Gtid event."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_jsonfast",
                                    "Compiled hot loop of `gtidkit binlog show --json` (optional).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__jsonfast(void) {
    crc_init();
    meta_init();
    return PyModule_Create(&module);
}
