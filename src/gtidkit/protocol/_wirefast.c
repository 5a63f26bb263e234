/* gtidkit.protocol._wirefast: the two per-statement loops of a COM_STMT_EXECUTE in C, for gtidkit.protocol.wire_fast.
 *
 *   execute_params(payload, num_params, query_attributes, previous_types, type_cache)
 *       the bound values of a whole COM_STMT_EXECUTE payload (command byte included), as
 *       gtidkit.protocol.messages.execute_parameters gives them: ([values], types) or None (a layout that function
 *       leaves to the general path). NotImplemented for whatever this file does not decode (a string of 251 bytes
 *       or more, a temporal or NULL-typed value, an odd previous_types): the caller then runs the Python function.
 *   binary_rows(rows, seq, types, unsigned[, head, eof_warnings, eof_status])
 *       the framed binary-protocol rows of a result set (DEVDOC page_protocol_binary_resultset: 0x00, the NULL
 *       bitmap with its offset of 2, the values), packet headers with sequence ids from seq: (bytes, next seq),
 *       byte for byte what messages.encode_binary_rows then framing gives. None for anything else: a row that is
 *       not a tuple of the right width, a value other than None / int / float / str / bytes in the columns below,
 *       an integer that does not fit its column, text that is no UTF-8, a packet of 16 MiB or more. The caller
 *       then runs the Python path, which answers exactly (its LocalProtocolError included). With `head` (bytes),
 *       those bytes come first and a classic EOF packet (0xFE, eof_warnings, eof_status, 2 bytes each) last, its
 *       sequence id the one after the rows': a prepared SELECT's whole answer (ServerConnection.send_binary_rows_again).
 *
 * Values handled by binary_rows, by column type (configure() gives each type's kind, from messages.py's tables):
 *   integer types (TINY 1, SHORT / YEAR 2, LONG / INT24 4, LONGLONG 8 bytes): an int that fits, little-endian,
 *       two's complement when negative (Python's int.to_bytes(w, "little", signed=v < 0 and not unsigned));
 *   DOUBLE: a float, IEEE-754 binary64; FLOAT: a float, binary32 (one out of its range: None, struct raises);
 *   text types (not in NON_TEXT_TYPES): str as UTF-8, bytes as they are, an int as its decimal digits, each a
 *       length-encoded string.
 * Sources: DEVDOC page_protocol_com_stmt_execute, page_protocol_binary_resultset, page_protocol_basic_dt_integers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "_wirefast copies IEEE-754 doubles and floats as they are in memory: little-endian machines only"
#endif

/* what configure() says of each column / parameter type code */
enum { K_OTHER = 0, K_INT = 1, K_DOUBLE = 2, K_FLOAT = 3, K_STRING = 4 };

/* column types: K_INT (with width), K_DOUBLE, K_FLOAT, K_STRING (a lenenc string in a row), K_OTHER */
static unsigned char column_kind[256];
/* parameter types: K_INT, K_DOUBLE, K_FLOAT, K_STRING (messages._STRING_PARAM_TYPES), K_OTHER */
static unsigned char param_kind[256];
static unsigned char int_width[256];
static int configured = 0;

#define MAX_PAYLOAD 0xFFFFFF
#define PARAMETER_COUNT_AVAILABLE 0x08
#define UNSIGNED_PARAM_FLAG 0x80
#define TYPE_CACHE_KEPT 4096

/* a growing byte buffer */
typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buf;

static int
buf_reserve(Buf *b, Py_ssize_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + more)
        cap *= 2;
    char *p = PyMem_Realloc(b->data, cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

static Py_ssize_t
lenenc_size(Py_ssize_t n)
{
    return n < 0xFB ? 1 : n < 0x10000 ? 3 : n < 0x1000000 ? 4 : 9;
}

static void
put_lenenc(char *p, Py_ssize_t n)
{
    unsigned long long v = (unsigned long long)n;
    if (n < 0xFB) {
        p[0] = (char)v;
    } else if (n < 0x10000) {
        p[0] = (char)0xFC;
        p[1] = (char)(v & 0xFF);
        p[2] = (char)(v >> 8);
    } else if (n < 0x1000000) {
        p[0] = (char)0xFD;
        p[1] = (char)(v & 0xFF);
        p[2] = (char)((v >> 8) & 0xFF);
        p[3] = (char)(v >> 16);
    } else {
        p[0] = (char)0xFE;
        for (int i = 0; i < 8; i++)
            p[1 + i] = (char)((v >> (8 * i)) & 0xFF);
    }
}

static PyObject *
configure(PyObject *self, PyObject *args)
{
    Py_buffer columns, params, widths;
    if (!PyArg_ParseTuple(args, "y*y*y*", &columns, &params, &widths))
        return NULL;
    if (columns.len != 256 || params.len != 256 || widths.len != 256) {
        PyBuffer_Release(&columns);
        PyBuffer_Release(&params);
        PyBuffer_Release(&widths);
        PyErr_SetString(PyExc_ValueError, "configure() takes three tables of 256 bytes");
        return NULL;
    }
    memcpy(column_kind, columns.buf, 256);
    memcpy(param_kind, params.buf, 256);
    memcpy(int_width, widths.buf, 256);
    PyBuffer_Release(&columns);
    PyBuffer_Release(&params);
    PyBuffer_Release(&widths);
    configured = 1;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------ parameters */

static unsigned long long
read_le(const unsigned char *p, int w)
{
    unsigned long long v = 0;
    for (int i = w - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* one fixed-width value at p (K_INT / K_DOUBLE / K_FLOAT of type t); NULL with an exception on failure */
static PyObject *
fixed_value(const unsigned char *p, int kind, int t, int uns)
{
    if (kind == K_INT) {
        int w = int_width[t];
        unsigned long long v = read_le(p, w);
        if (uns)
            return PyLong_FromUnsignedLongLong(v);
        if (w < 8 && (v >> (8 * w - 1)) & 1)
            v |= ~0ULL << (8 * w); /* sign-extend */
        return PyLong_FromLongLong((long long)v);
    }
    if (kind == K_DOUBLE) {
        double d;
        memcpy(&d, p, 8);
        return PyFloat_FromDouble(d);
    }
    float f;
    memcpy(&f, p, 4);
    return PyFloat_FromDouble((double)f);
}

static PyObject *
execute_params(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer buf;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "execute_params(payload, num_params, query_attributes, previous_types, type_cache) takes 5 "
                        "arguments");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[1]);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    int query_attributes = PyObject_IsTrue(args[2]);
    if (query_attributes < 0)
        return NULL;
    PyObject *previous = args[3], *cache = args[4];
    if (!PyDict_Check(cache)) {
        PyErr_SetString(PyExc_TypeError, "execute_params: type_cache must be a dict");
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &buf, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *payload = buf.buf;
    Py_ssize_t end = buf.len, pos = 10;
    PyObject *types = NULL, *values = NULL, *result = NULL;
    if (!configured || n < 0 || end < 10 || n >= 0xFB) {
        result = Py_NewRef(Py_NotImplemented);
        goto done;
    }
    if (n == 0) {
        if (query_attributes && payload[5] & PARAMETER_COUNT_AVAILABLE) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        values = PyList_New(0);
        if (values == NULL)
            goto done;
        /* previous_types or () */
        PyObject *kept = PyObject_IsTrue(previous) == 1 ? Py_NewRef(previous) : PyTuple_New(0);
        if (kept != NULL)
            result = Py_BuildValue("(ON)", values, kept);
        goto done;
    }
    if (query_attributes) {
        if (pos >= end || payload[pos] != n) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        pos += 1;
    }
    Py_ssize_t nulls = pos, nbytes = (n + 7) / 8;
    pos += nbytes;
    if (pos >= end) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (payload[pos]) { /* new types bound: (type, unsigned) pairs, kept by their raw bytes */
        if (query_attributes) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        pos += 1;
        if (pos + 2 * n > end) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        PyObject *raw = PyBytes_FromStringAndSize((const char *)payload + pos, 2 * n);
        if (raw == NULL)
            goto done;
        types = PyDict_GetItemWithError(cache, raw);
        if (types != NULL) {
            Py_INCREF(types);
        } else if (PyErr_Occurred()) {
            Py_DECREF(raw);
            goto done;
        } else {
            types = PyTuple_New(n);
            if (types == NULL) {
                Py_DECREF(raw);
                goto done;
            }
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *pair = Py_BuildValue("(iO)", payload[pos + 2 * i],
                                               payload[pos + 2 * i + 1] & UNSIGNED_PARAM_FLAG ? Py_True : Py_False);
                if (pair == NULL) {
                    Py_DECREF(raw);
                    goto done;
                }
                PyTuple_SET_ITEM(types, i, pair);
            }
            if (PyDict_GET_SIZE(cache) < TYPE_CACHE_KEPT && PyDict_SetItem(cache, raw, types) < 0) {
                Py_DECREF(raw);
                goto done;
            }
        }
        Py_DECREF(raw);
        pos += 2 * n;
    } else {
        pos += 1;
        if (previous == Py_None || !PyTuple_CheckExact(previous) || PyTuple_GET_SIZE(previous) != n) {
            /* None or the wrong count: the general path; anything else odd: the Python function decides */
            result = Py_NewRef(previous == Py_None || PyTuple_CheckExact(previous) ? Py_None : Py_NotImplemented);
            goto done;
        }
        types = Py_NewRef(previous);
    }
    values = PyList_New(n);
    if (values == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyTuple_GET_ITEM(types, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyLong_CheckExact(PyTuple_GET_ITEM(pair, 0)) ||
            !PyBool_Check(PyTuple_GET_ITEM(pair, 1))) {
            result = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        long t = PyLong_AsLong(PyTuple_GET_ITEM(pair, 0));
        int uns = PyTuple_GET_ITEM(pair, 1) == Py_True;
        if (payload[nulls + (i >> 3)] & (1 << (i & 7))) {
            PyList_SET_ITEM(values, i, Py_NewRef(Py_None));
            continue;
        }
        if (t < 0 || t > 255) {
            result = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        int kind = param_kind[t];
        PyObject *v;
        if (kind == K_INT || kind == K_DOUBLE || kind == K_FLOAT) {
            int w = kind == K_INT ? int_width[t] : kind == K_DOUBLE ? 8 : 4;
            if (pos + w > end) { /* truncated: struct.error in the Python function, which returns None */
                result = Py_NewRef(Py_None);
                goto done;
            }
            v = fixed_value(payload + pos, kind, (int)t, uns);
            pos += w;
        } else if (kind == K_STRING && pos < end && payload[pos] < 0xFB) {
            Py_ssize_t m = payload[pos] + 1;
            if (pos + m > end) {
                result = Py_NewRef(Py_None);
                goto done;
            }
            v = PyBytes_FromStringAndSize((const char *)payload + pos + 1, m - 1);
            pos += m;
        } else {
            result = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        if (v == NULL)
            goto done;
        PyList_SET_ITEM(values, i, v);
    }
    result = PyTuple_Pack(2, values, types);
done:
    Py_XDECREF(values);
    Py_XDECREF(types);
    PyBuffer_Release(&buf);
    return result;
}

/* --------------------------------------------------------------------------------------------- rows */

/* append one value of column kind `kind` (width w for K_INT) to b; 1 = done, 0 = not handled here, -1 = error */
static int
put_value(Buf *b, PyObject *v, int kind, int w, int uns)
{
    if (kind == K_INT) {
        if (!PyLong_CheckExact(v))
            return 0;
        int overflow = 0;
        long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
        unsigned long long u;
        if (overflow < 0)
            return 0;
        if (overflow > 0) { /* above LLONG_MAX: fits only 8 unsigned bytes */
            u = PyLong_AsUnsignedLongLong(v);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
            if (w < 8)
                return 0;
        } else if (s == -1 && PyErr_Occurred()) {
            return -1;
        } else if (s < 0) {
            if (uns)
                return 0; /* int.to_bytes(signed=False) of a negative number: OverflowError */
            if (w < 8 && s < -(1LL << (8 * w - 1)))
                return 0;
            u = (unsigned long long)s;
        } else {
            if (w < 8 && (unsigned long long)s >> (8 * w))
                return 0;
            u = (unsigned long long)s;
        }
        if (buf_reserve(b, w) < 0)
            return -1;
        for (int i = 0; i < w; i++)
            b->data[b->len++] = (char)((u >> (8 * i)) & 0xFF);
        return 1;
    }
    if (kind == K_DOUBLE || kind == K_FLOAT) {
        if (!PyFloat_CheckExact(v))
            return 0;
        double d = PyFloat_AS_DOUBLE(v);
        if (kind == K_DOUBLE) {
            if (isnan(d))
                return 0; /* struct.pack's own way with a NaN's bits */
            if (buf_reserve(b, 8) < 0)
                return -1;
            memcpy(b->data + b->len, &d, 8);
            b->len += 8;
            return 1;
        }
        if (isnan(d) || (isfinite(d) && fabs(d) > FLT_MAX))
            return 0; /* struct.pack("<f") raises OverflowError; rounding at the edge is its business too */
        float f = (float)d;
        if (buf_reserve(b, 4) < 0)
            return -1;
        memcpy(b->data + b->len, &f, 4);
        b->len += 4;
        return 1;
    }
    if (kind != K_STRING)
        return 0;
    const char *p;
    Py_ssize_t m;
    PyObject *text = NULL;
    if (PyUnicode_CheckExact(v)) {
        p = PyUnicode_AsUTF8AndSize(v, &m);
        if (p == NULL) { /* a lone surrogate: surrogateescape is the Python path's */
            PyErr_Clear();
            return 0;
        }
    } else if (PyBytes_CheckExact(v)) {
        p = PyBytes_AS_STRING(v);
        m = PyBytes_GET_SIZE(v);
    } else if (PyLong_CheckExact(v)) {
        text = PyObject_Str(v);
        if (text == NULL)
            return -1;
        p = PyUnicode_AsUTF8AndSize(text, &m);
        if (p == NULL) {
            Py_DECREF(text);
            return -1;
        }
    } else {
        return 0;
    }
    if (buf_reserve(b, lenenc_size(m) + m) < 0) {
        Py_XDECREF(text);
        return -1;
    }
    put_lenenc(b->data + b->len, m);
    b->len += lenenc_size(m);
    memcpy(b->data + b->len, p, m);
    b->len += m;
    Py_XDECREF(text);
    return 1;
}

static PyObject *
binary_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 && nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "binary_rows(rows, seq, types, unsigned[, head, eof_warnings, eof_status]) takes 4 or 7 "
                        "arguments");
        return NULL;
    }
    PyObject *rows = args[0], *types = args[2], *unsigned_ = args[3];
    long seq = PyLong_AsLong(args[1]);
    if (seq == -1 && PyErr_Occurred())
        return NULL;
    /* the 7-argument form: `head` (bytes: the framed column count, definitions and EOF) first, the classic EOF
       (0xFE, warnings, status flags) after the rows; None when either number does not fit its 2 bytes */
    PyObject *head = NULL;
    long eof_warnings = 0, eof_status = 0;
    if (nargs == 7) {
        head = args[4];
        eof_warnings = PyLong_AsLong(args[5]);
        if (eof_warnings == -1 && PyErr_Occurred())
            return NULL;
        eof_status = PyLong_AsLong(args[6]);
        if (eof_status == -1 && PyErr_Occurred())
            return NULL;
        if (!PyBytes_CheckExact(head) || eof_warnings < 0 || eof_warnings > 0xFFFF || eof_status < 0 ||
            eof_status > 0xFFFF)
            Py_RETURN_NONE;
    }
    if (!configured || !(PyList_CheckExact(rows) || PyTuple_CheckExact(rows)) || !PyTuple_CheckExact(types) ||
        !PyTuple_CheckExact(unsigned_) || seq < 0 || seq > 255)
        Py_RETURN_NONE;
    Py_ssize_t ncols = PyTuple_GET_SIZE(types), nrows = PySequence_Fast_GET_SIZE(rows);
    Py_ssize_t nuns = PyTuple_GET_SIZE(unsigned_);
    if (ncols == 0 || ncols > 4096)
        Py_RETURN_NONE;
    unsigned char kinds[4096], widths[4096], uns[4096];
    for (Py_ssize_t c = 0; c < ncols; c++) {
        PyObject *t = PyTuple_GET_ITEM(types, c);
        long code = PyLong_Check(t) ? PyLong_AsLong(t) : -1;
        if (code < 0 || code > 255) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        kinds[c] = column_kind[code];
        widths[c] = int_width[code];
        uns[c] = c < nuns ? (unsigned char)PyObject_IsTrue(PyTuple_GET_ITEM(unsigned_, c)) : 0;
    }
    Py_ssize_t bitmap = (ncols + 7 + 2) / 8;
    Buf b = {NULL, 0, 0};
    if (head != NULL) {
        Py_ssize_t n = PyBytes_GET_SIZE(head);
        if (buf_reserve(&b, n) < 0)
            goto error;
        memcpy(b.data, PyBytes_AS_STRING(head), n);
        b.len = n;
    }
    PyObject **items = PySequence_Fast_ITEMS(rows);
    for (Py_ssize_t r = 0; r < nrows; r++) {
        PyObject *row = items[r];
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != ncols)
            goto fallback;
        Py_ssize_t start = b.len;
        if (buf_reserve(&b, 4 + 1 + bitmap) < 0)
            goto error;
        b.len += 4; /* the packet header, written when the payload is known */
        b.data[b.len++] = 0;
        Py_ssize_t bits = b.len;
        memset(b.data + bits, 0, bitmap);
        b.len += bitmap;
        for (Py_ssize_t c = 0; c < ncols; c++) {
            PyObject *v = PyTuple_GET_ITEM(row, c);
            if (v == Py_None) {
                b.data[bits + ((c + 2) >> 3)] |= (char)(1 << ((c + 2) & 7));
                continue;
            }
            int done = put_value(&b, v, kinds[c], widths[c], uns[c]);
            if (done < 0)
                goto error;
            if (done == 0)
                goto fallback;
        }
        Py_ssize_t length = b.len - start - 4;
        if (length >= MAX_PAYLOAD)
            goto fallback; /* split into several packets: the Python framing's business */
        b.data[start] = (char)(length & 0xFF);
        b.data[start + 1] = (char)((length >> 8) & 0xFF);
        b.data[start + 2] = (char)(length >> 16);
        b.data[start + 3] = (char)seq;
        seq = (seq + 1) & 0xFF;
    }
    if (head != NULL) { /* the EOF packet: length 5, sequence id, 0xFE, warnings, status flags */
        if (buf_reserve(&b, 9) < 0)
            goto error;
        char *e = b.data + b.len;
        e[0] = 5;
        e[1] = 0;
        e[2] = 0;
        e[3] = (char)seq;
        e[4] = (char)0xFE;
        e[5] = (char)(eof_warnings & 0xFF);
        e[6] = (char)(eof_warnings >> 8);
        e[7] = (char)(eof_status & 0xFF);
        e[8] = (char)(eof_status >> 8);
        b.len += 9;
        seq = (seq + 1) & 0xFF;
    }
    PyObject *out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
    PyMem_Free(b.data);
    if (out == NULL)
        return NULL;
    PyObject *next = PyLong_FromLong(seq);
    if (next == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    PyObject *result = PyTuple_Pack(2, out, next);
    Py_DECREF(out);
    Py_DECREF(next);
    return result;
fallback:
    PyMem_Free(b.data);
    Py_RETURN_NONE;
error:
    PyMem_Free(b.data);
    return NULL;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(column_kinds, param_kinds, int_widths): the type tables (256 bytes each) from messages.py."},
    {"execute_params", (PyCFunction)(void (*)(void))execute_params, METH_FASTCALL,
     "execute_params(payload, num_params, query_attributes, previous_types, type_cache) -> ([values], types), "
     "None or NotImplemented."},
    {"binary_rows", (PyCFunction)(void (*)(void))binary_rows, METH_FASTCALL,
     "binary_rows(rows, seq, types, unsigned[, head, eof_warnings, eof_status]) -> (framed rows, next sequence "
     "id) or None; with head: head + the rows + a classic EOF packet."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_wirefast", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__wirefast(void)
{
    return PyModule_Create(&module);
}
