/* The compiled hot loop of gtidkit.binlog.mysqlbinlog.ScriptPrinter.feed_frames (optional: the pure-Python loop
 * prints the same bytes; tests/binlog/test_scriptfast.py compares the two on every fixture binlog).
 *
 * run() prints a run of the common events of a row-based binlog -- Gtid / Anonymous_gtid (8.0 layout), Query
 * events equal to the last one Python printed (a BEGIN with the same status variables and database: its text is
 * then the header, SET TIMESTAMP and a fixed tail), Table_map, rows events and Xid -- straight from the chunk
 * buffer, verifying CRC32 footers, and stops at the first event it does not take (or at the end of the buffer, or
 * of a statement once about OUT_LIMIT bytes are written; before any Gtid event when GTID filters are on, and
 * before the first event of --stop-datetime). A statement (Table_map ... rows event with STMT_END_F)
 * is printed whole or not at all: the loop rewinds to the statement's first event when it has to stop inside one.
 *
 * The text is what mysqlbinlog's print functions write (client/mysqlbinlog.cc, sql/log_event.cc); the layouts
 * are those of libbinlogevents (control_events.cpp, rows_event.cpp, statement_events.cpp). Written for gtidkit;
 * no MySQL code.
 */
#include "_fastcommon.h"

#define DELIM "/*!*/;\n"

/* ------------------------------------------------------------------------------------------------ output */
/* appends never fail: callers reserve enough room first (RESERVE) */
#define RESERVE(b, k)                        \
    do {                                     \
        if (buf_reserve((b), (k)) < 0) goto fail; \
    } while (0)

static inline void put_2d(Buf *b, int v) {
    b->p[b->n++] = (char)('0' + v / 10);
    b->p[b->n++] = (char)('0' + v % 10);
}

static inline void put_hex8(Buf *b, uint32_t v) {
    for (int i = 7; i >= 0; i--) b->p[b->n++] = HEXD[(v >> (4 * i)) & 0xf];
}

/* "yymmdd hh:mm:ss", the hour space-padded (mysqlbinlog's print_header; UTC) */
static void put_short_time(Buf *b, uint32_t ts) {
    time_t t = (time_t)ts;
    struct tm tm;
    gmtime_r(&t, &tm);
    put_2d(b, tm.tm_year % 100);
    put_2d(b, tm.tm_mon + 1);
    put_2d(b, tm.tm_mday);
    b->p[b->n++] = ' ';
    if (tm.tm_hour < 10) {
        b->p[b->n++] = ' ';
        b->p[b->n++] = (char)('0' + tm.tm_hour);
    } else {
        put_2d(b, tm.tm_hour);
    }
    b->p[b->n++] = ':';
    put_2d(b, tm.tm_min);
    b->p[b->n++] = ':';
    put_2d(b, tm.tm_sec);
}

/* "YYYY-MM-DD hh:mm:ss.uuuuuu UTC" of microseconds since the epoch (callers keep the year below 10000) */
static void put_micro_time(Buf *b, uint64_t us) {
    time_t t = (time_t)(us / 1000000);
    unsigned frac = (unsigned)(us % 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    int y = tm.tm_year + 1900;
    put_2d(b, y / 100);
    put_2d(b, y % 100);
    b->p[b->n++] = '-';
    put_2d(b, tm.tm_mon + 1);
    b->p[b->n++] = '-';
    put_2d(b, tm.tm_mday);
    b->p[b->n++] = ' ';
    put_2d(b, tm.tm_hour);
    b->p[b->n++] = ':';
    put_2d(b, tm.tm_min);
    b->p[b->n++] = ':';
    put_2d(b, tm.tm_sec);
    b->p[b->n++] = '.';
    char tmp[6];
    for (int i = 5; i >= 0; i--) {
        tmp[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    put(b, tmp, 6);
    PUTS(b, " UTC");
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* MySQL's base64_encode: 76 characters a line (57 bytes), every line ending in a newline */
static void put_base64(Buf *b, const unsigned char *s, Py_ssize_t n) {
    char *o = b->p + b->n;
    Py_ssize_t col = 0;
    while (n >= 3) {
        uint32_t v = (uint32_t)s[0] << 16 | (uint32_t)s[1] << 8 | s[2];
        o[0] = B64[v >> 18];
        o[1] = B64[(v >> 12) & 63];
        o[2] = B64[(v >> 6) & 63];
        o[3] = B64[v & 63];
        o += 4;
        s += 3;
        n -= 3;
        col += 4;
        if (col == 76 && n > 0) {
            *o++ = '\n';
            col = 0;
        }
    }
    if (n == 1) {
        uint32_t v = (uint32_t)s[0] << 16;
        o[0] = B64[v >> 18];
        o[1] = B64[(v >> 12) & 63];
        o[2] = '=';
        o[3] = '=';
        o += 4;
    } else if (n == 2) {
        uint32_t v = (uint32_t)s[0] << 16 | (uint32_t)s[1] << 8;
        o[0] = B64[v >> 18];
        o[1] = B64[(v >> 12) & 63];
        o[2] = B64[(v >> 6) & 63];
        o[3] = '=';
        o += 4;
    }
    *o++ = '\n';
    b->n = o - b->p;
}

static inline Py_ssize_t bsize_of(Py_ssize_t size, int foot) { return size - HEADER_LEN - foot; }

static inline Py_ssize_t base64_size(Py_ssize_t n) { return (n + 2) / 3 * 4 + n / 57 + 2; }

/* the header comment up to the tab: "# at N\n#yymmdd hh:mm:ss server id S  end_log_pos P [CRC32 0x..] \t" */
static void put_head(Buf *b, uint64_t pos, const unsigned char *ev, Py_ssize_t size, int footer) {
    PUTS(b, "# at ");
    put_u64(b, pos);
    PUTS(b, "\n#");
    put_short_time(b, u32le(ev));
    PUTS(b, " server id ");
    put_u64(b, u32le(ev + 5));
    PUTS(b, "  end_log_pos ");
    put_u64(b, u32le(ev + 13));
    if (footer) {
        PUTS(b, " CRC32 0x");
        put_hex8(b, u32le(ev + size - 4));
        PUTS(b, " \t");
    } else {
        PUTS(b, " \t");
    }
}

static void put_uuid(Buf *b, const unsigned char *sid) {
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) b->p[b->n++] = '-';
        b->p[b->n++] = HEXD[sid[i] >> 4];
        b->p[b->n++] = HEXD[sid[i] & 15];
    }
}

#define MAX_MICRO_TIME 253402300799999999ULL /* 9999-12-31 23:59:59.999999 */

/* Gtid_log_event::print of an untagged 8.0.14+ body; 0 when the layout is another one (Python prints it) */
static int gtid_event(Buf *b, uint64_t pos, const unsigned char *ev, Py_ssize_t size, int footer, int type,
                      long *isv, PyObject *gtids) {
    const unsigned char *p = ev + HEADER_LEN, *e = ev + size - footer;
    if (e - p < 42 + 7 + 1 + 4) return 0;
    int flags = p[0];
    const unsigned char *sid = p + 1;
    int64_t gno = (int64_t)uNle(p + 17, 8);
    if (p[25] != 2) return 0; /* logical timestamps type */
    int64_t lc = (int64_t)uNle(p + 26, 8), seq = (int64_t)uNle(p + 34, 8);
    const unsigned char *q = p + 42;
    uint64_t imm = uNle(q, 7), orig;
    q += 7;
    if (imm & (1ULL << 55)) {
        imm &= (1ULL << 55) - 1;
        if (e - q < 7) return 0;
        orig = uNle(q, 7);
        q += 7;
    } else {
        orig = imm;
    }
    if (q >= e) return 0;
    uint64_t tlen;
    unsigned first = *q;
    if (first < 251) {
        tlen = first;
        q += 1;
    } else {
        int w = first == 252 ? 2 : first == 253 ? 3 : first == 254 ? 8 : -1;
        if (w < 0 || e - q < 1 + w) return 0;
        tlen = uNle(q + 1, w);
        q += 1 + w;
    }
    if (e - q < 4) return 0;
    uint32_t iv = u32le(q), ov;
    q += 4;
    if (iv & 0x80000000u) {
        if (e - q < 4) return 0;
        iv &= 0x7fffffffu;
        ov = u32le(q);
        q += 4;
    } else {
        ov = iv;
    }
    if (q != e) return 0; /* a commit_group_ticket or anything newer */
    int anonymous = 0;
    int zero = 1;
    for (int i = 0; i < 16; i++) zero &= sid[i] == 0;
    if (gno == 0 && zero) {
        anonymous = 1;
    } else if (!(type == T_GTID && gno >= 1 && gno <= INT64_MAX - 1)) {
        return 0;
    }
    if (orig > MAX_MICRO_TIME || imm > MAX_MICRO_TIME) return 0;
    if (!anonymous && gtids != NULL) {
        PyObject *t = Py_BuildValue("(y#L)", (const char *)sid, (Py_ssize_t)16, (long long)gno);
        if (t == NULL) return -1;
        int r = PyList_Append(gtids, t);
        Py_DECREF(t);
        if (r < 0) return -1;
    }
    *isv = (long)iv;
    put_head(b, pos, ev, size, footer);
    if (type == T_ANON_GTID)
        PUTS(b, "Anonymous_GTID\tlast_committed=");
    else
        PUTS(b, "GTID\tlast_committed=");
    put_i64(b, lc);
    PUTS(b, "\tsequence_number=");
    put_i64(b, seq);
    if (flags & 1)
        PUTS(b, "\trbr_only=no\toriginal_committed_timestamp=");
    else
        PUTS(b, "\trbr_only=yes\toriginal_committed_timestamp=");
    put_u64(b, orig);
    PUTS(b, "\timmediate_commit_timestamp=");
    put_u64(b, imm);
    PUTS(b, "\ttransaction_length=");
    put_u64(b, tlen);
    PUTS(b, "\n");
    if (!(flags & 1)) PUTS(b, "/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*/" DELIM);
    PUTS(b, "# original_commit_timestamp=");
    put_u64(b, orig);
    PUTS(b, " (");
    put_micro_time(b, orig);
    PUTS(b, ")\n# immediate_commit_timestamp=");
    put_u64(b, imm);
    PUTS(b, " (");
    put_micro_time(b, imm);
    PUTS(b, ")\n/*!80001 SET @@session.original_commit_timestamp=");
    put_u64(b, orig);
    PUTS(b, "*/" DELIM "/*!80014 SET @@session.original_server_version=");
    put_u64(b, ov);
    PUTS(b, "*/" DELIM "/*!80014 SET @@session.immediate_server_version=");
    put_u64(b, iv);
    PUTS(b, "*/" DELIM "SET @@SESSION.GTID_NEXT= '");
    if (anonymous) {
        PUTS(b, "ANONYMOUS");
    } else {
        put_uuid(b, sid);
        b->p[b->n++] = ':';
        put_i64(b, gno);
    }
    PUTS(b, "'" DELIM);
    return 1;
}

static PyObject *run(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t at;
    unsigned long long base;
    int footer, verify;
    long isv;
    Py_buffer rows_inline, fast, qkey, qtail, qts, qxid, head_in;
    PyObject *names, *gtids;
    int gtid_py, skipping;
    long long stop_ts;
    if (!PyArg_ParseTuple(args, "y*nKpplOy*y*y*y*y*y*OpLpy*", &view, &at, &base, &footer, &verify, &isv,
                          &names, &rows_inline, &fast, &qkey, &qtail, &qts, &qxid, &gtids, &gtid_py, &stop_ts,
                          &skipping, &head_in))
        return NULL;
    PyObject *result = NULL;
    Buf out = {NULL, 0, 0}, body = {NULL, 0, 0};
    const unsigned char *buf = view.buf, *rows_t = rows_inline.buf, *fast_t = fast.buf;
    Py_ssize_t len = view.len;
    int foot = footer ? 4 : 0;
    int seen_gtid = -1, in_trx = -1; /* -1: not changed */
    /* out starts with the "# at" lines of events skipped before (head_in); text up to printed_end is printed,
       what follows it (the "# at" lines of events skipped since) is handed back as the pending head */
    Py_ssize_t stmt_at = -1, stmt_out = 0, done = at, printed_end = 0;
    PyObject *gt = gtids == Py_None ? NULL : gtids;
    if (gt != NULL && !PyList_Check(gt)) {
        PyErr_SetString(PyExc_TypeError, "run(): gtids must be a list or None");
        goto fail;
    }
    if (rows_inline.len != 256 || fast.len != 256 || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) != 256) {
        PyErr_SetString(PyExc_ValueError, "run(): bad tables");
        goto fail;
    }
    RESERVE(&out, head_in.len + 64);
    put(&out, head_in.buf, head_in.len);
    while (1) {
        if (stmt_at < 0) {
            done = at;
            if (out.n >= OUT_LIMIT) break;
        }
        if (len - at < HEADER_LEN) break;
        const unsigned char *ev = buf + at;
        Py_ssize_t size = (Py_ssize_t)u32le(ev + 9);
        if (size < HEADER_LEN + foot || size > len - at) break;
        int t = ev[4];
        if (verify && foot && crc32_of(ev, size - 4) != u32le(ev + size - 4)) break;
        if (!rows_t[t] && !fast_t[t]) break; /* a layout this FDE does not give the fast readers */
        if (stop_ts >= 0 && (long long)u32le(ev) >= stop_ts) break; /* --stop-datetime: Python ends there */
        if (gtid_py && (t == T_GTID || t == T_ANON_GTID)) break;  /* GTID filters: Python decides */
        if (skipping) {
            /* a transaction the GTID filters leave out: each event leaves only its "# at" line (printed before
               the next event printed), up to its Xid; a BEGIN is the only Query taken (a COMMIT / ROLLBACK ends
               the skip in Python) */
            int ends = 0;
            if (t == T_QUERY) {
                const unsigned char *p = ev + HEADER_LEN, *e = ev + size - foot;
                if (bsize_of(size, foot) < 13) break;
                const unsigned char *q = p + 13 + u16le(p + 11) + p[8] + 1;
                if (q > e || e - q != 5 || memcmp(q, "BEGIN", 5) != 0) break;
            } else if (t == T_XID) {
                ends = 1;
            } else if (!rows_t[t] && t != T_TABLE_MAP) {
                break;
            }
            RESERVE(&out, 32);
            PUTS(&out, "# at ");
            put_u64(&out, base + (uint64_t)at);
            PUTS(&out, "\n");
            at += size;
            done = at;
            if (ends) {
                skipping = 0;
                break;
            }
            continue;
        }
        uint64_t pos = base + (uint64_t)at;
        Py_ssize_t bsize = size - HEADER_LEN - foot; /* body size without the footer */
        RESERVE(&out, 4096 + 2 * qtail.len + 2 * qkey.len + qxid.len + qts.len + 2 * size); /* a Gtid prints ~900 B */
        if (rows_t[t]) {
            if (bsize < 8) break;
            const unsigned char *p = ev + HEADER_LEN;
            PyObject *name = PyTuple_GET_ITEM(names, t);
            if (!PyBytes_Check(name)) break;
            if (stmt_at < 0) {
                stmt_at = at;
                stmt_out = out.n;
            }
            int end = (int)(u16le(p + 6) & 1); /* STMT_END_F */
            put_head(&out, pos, ev, size, foot);
            put(&out, PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name));
            PUTS(&out, ": table id ");
            put_u64(&out, uNle(p, 6));
            if (end) PUTS(&out, " flags: STMT_END_F");
            PUTS(&out, "\n");
            RESERVE(&body, 16 + base64_size(size));
            if (body.n == 0) PUTS(&body, "\nBINLOG '\n");
            put_base64(&body, ev, size);
            if (end) {
                RESERVE(&out, body.n + 16);
                put(&out, body.p, body.n);
                PUTS(&out, "'" DELIM);
                body.n = 0;
                stmt_at = -1;
            }
        } else if (t == T_TABLE_MAP) {
            const unsigned char *p = ev + HEADER_LEN, *e = ev + size - foot;
            if (bsize < 8 + 1) break;
            const unsigned char *d = p + 8 + 1 + p[8]; /* database name's NUL */
            if (d + 1 >= e || *d != 0) break;
            const unsigned char *tn = d + 2 + d[1];
            if (tn >= e || *tn != 0) break;
            if (e - tn >= 9) { /* a column named my_row_id may be a generated invisible primary key */
                int found = 0;
                for (const unsigned char *s = tn; s + 9 <= e; s++)
                    if (s[0] == 'm' && memcmp(s, "my_row_id", 9) == 0) {
                        found = 1;
                        break;
                    }
                if (found) break;
            }
            if (stmt_at < 0) {
                stmt_at = at;
                stmt_out = out.n;
            }
            put_head(&out, pos, ev, size, foot);
            PUTS(&out, "Table_map: `");
            put(&out, (const char *)p + 9, p[8]);
            PUTS(&out, "`.`");
            put(&out, (const char *)d + 2, d[1]);
            PUTS(&out, "` mapped to number ");
            put_u64(&out, uNle(p, 6));
            PUTS(&out, "\n");
            if (isv >= 80030 && isv != 999999) PUTS(&out, "# has_generated_invisible_primary_key=0\n");
            RESERVE(&body, 16 + base64_size(size));
            if (body.n == 0) PUTS(&body, "\nBINLOG '\n");
            put_base64(&body, ev, size);
        } else if (stmt_at >= 0) {
            break; /* anything else inside a statement: Python prints it */
        } else if (t == T_XID) {
            if (bsize != 8) break;
            put_head(&out, pos, ev, size, foot);
            PUTS(&out, "Xid = ");
            put_u64(&out, uNle(ev + HEADER_LEN, 8));
            PUTS(&out, "\nCOMMIT" DELIM);
            seen_gtid = 0;
            in_trx = 0;
        } else if (t == T_GTID || t == T_ANON_GTID) {
            long v = isv;
            int r = gtid_event(&out, pos, ev, size, foot, t, &v, gt);
            if (r < 0) goto fail;
            if (r == 0) break;
            isv = v;
            seen_gtid = 1;
        } else if (t == T_QUERY) {
            /* the last Query Python printed, again: same status variables, database and text */
            const unsigned char *p = ev + HEADER_LEN;
            if (qkey.len == 0 || bsize != 13 + qkey.len || (u16le(ev + 17) & 0x04) != 0) break;
            if (memcmp(p + 13, qkey.buf, (size_t)qkey.len) != 0) break;
            RESERVE(&out, 512 + qtail.len + qxid.len + qts.len);
            put_head(&out, pos, ev, size, foot);
            PUTS(&out, "Query\tthread_id=");
            put_u64(&out, u32le(p));
            PUTS(&out, "\texec_time=");
            put_u64(&out, u32le(p + 4));
            PUTS(&out, "\terror_code=");
            put_u64(&out, u16le(p + 9));
            put(&out, qxid.buf, qxid.len);
            PUTS(&out, "\nSET TIMESTAMP=");
            put_u64(&out, u32le(ev));
            put(&out, qts.buf, qts.len);
            PUTS(&out, DELIM);
            put(&out, qtail.buf, qtail.len);
            in_trx = 1;
        } else {
            break;
        }
        at += size;
        if (stmt_at < 0) printed_end = out.n;
    }
    if (stmt_at >= 0) out.n = stmt_out; /* stopped inside a statement: Python prints it from its first event */
    {
        PyObject *data = PyBytes_FromStringAndSize(out.p ? out.p : "", printed_end);
        if (data == NULL) goto fail;
        PyObject *skipped = PyBytes_FromStringAndSize(out.p ? out.p + printed_end : "", out.n - printed_end);
        if (skipped == NULL) {
            Py_DECREF(data);
            goto fail;
        }
        result = Py_BuildValue("(nNliiNi)", done, data, isv, seen_gtid, in_trx, skipped, skipping);
    }
fail:
    PyMem_Free(out.p);
    PyMem_Free(body.p);

    PyBuffer_Release(&view);
    PyBuffer_Release(&rows_inline);
    PyBuffer_Release(&fast);
    PyBuffer_Release(&qkey);
    PyBuffer_Release(&qtail);
    PyBuffer_Release(&qts);
    PyBuffer_Release(&qxid);
    PyBuffer_Release(&head_in);
    return result;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS,
     "run(buf, at, base, footer, verify, isv, names, rows_inline, fast, qkey, qtail, qts, qxid, gtids, gtid_py,\n"
     "stop_ts, skipping, head) -> (next_at, text, isv, seen_gtid, in_transaction, head, skipping): print the "
     "common events from buf[at:] (see the module comment of _scriptfast.c); stops before a Gtid event when "
     "gtid_py, before an event at or after stop_ts when it is >= 0; while skipping (a transaction the GTID "
     "filters leave out) only the '# at' lines; head: those lines pending before the first event printed (in) "
     "and after the last one (out); seen_gtid / in_transaction are -1 when unchanged."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scriptfast",
                                    "Compiled hot loop of the mysqlbinlog script printer (optional).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__scriptfast(void) {
    crc_init();
    return PyModule_Create(&module);
}
