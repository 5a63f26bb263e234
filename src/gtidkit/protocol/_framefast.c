/* gtidkit.protocol._framefast: a result set's rows framed as packets in one C pass, for
 * ServerConnection.send_result_set (protocol/connection.py).
 *
 * frame_rows(rows, seq, width, binary, types, unsigned) gives the bytes that encode_binary_rows (binary: the
 * COM_STMT_EXECUTE result rows) or encode_text_rows (text: COM_QUERY) then framing (a 4-byte header: payload length
 * (3 bytes, little-endian) and the sequence id) give, and the next sequence id; the Python functions in
 * protocol/messages.py stay the reference (tests/protocol/test_framefast.py compares both).
 *
 * It answers only what it encodes exactly as they do, and returns None for anything else, which the Python path
 * then frames (and raises on, where it raises): rows that are not a list or tuple of exact tuples / lists `width`
 * wide, a row payload of 16 MiB - 1 or more (split over several packets), and any value other than
 *   - None (binary: its bit in the NULL bitmap, offset 2; text: 0xFB),
 *   - str (exact type) as length-encoded UTF-8 (a str that does not encode strictly - lone surrogates, which the
 *     Python path writes with surrogateescape - is left to it), in a binary column only when its type has no
 *     binary form of its own (not an integer, FLOAT, DOUBLE or temporal type),
 *   - bytes (exact type) as length-encoded bytes, with the same condition in binary,
 *   - int (exact type, not bool): binary, little-endian of the integer type's width (TINY 1, SHORT / YEAR 2,
 *     LONG / INT24 4, LONGLONG 8) when it fits as encode_binary_rows checks (non-negative: below 2^(8w); negative:
 *     signed column and at least -2^(8w-1)), or its decimal text in a column of a text type; text: its decimal
 *     text,
 *   - float (exact type) in a binary DOUBLE (8 bytes) or FLOAT (4 bytes, unless it overflows a float) column.
 * MySQL's wire formats: https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_binary_resultset.html
 * and page_protocol_com_query_response_text_resultset_row.html.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* MySQL column types (include/field_types.h) */
enum {
    T_DECIMAL = 0, T_TINY = 1, T_SHORT = 2, T_LONG = 3, T_FLOAT = 4, T_DOUBLE = 5, T_TIMESTAMP = 7,
    T_LONGLONG = 8, T_INT24 = 9, T_DATE = 10, T_TIME = 11, T_DATETIME = 12, T_YEAR = 13
};

/* the largest payload of one packet (longer ones are split: the Python path's business) */
#define MAX_PAYLOAD 0xFFFFFF
/* columns the per-column tables hold on the stack; wider results use the heap */
#define STACK_COLUMNS 64

typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buffer;

static int
buf_reserve(Buffer *b, Py_ssize_t more)
{
    if (b->len + more <= b->cap) {
        return 0;
    }
    Py_ssize_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *data = PyMem_Realloc(b->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

/* a length-encoded integer (protocol/wire.py lenenc_int); `out` has room for 9 bytes; returns bytes written */
static int
put_lenenc(unsigned char *out, uint64_t n)
{
    if (n < 0xFB) {
        out[0] = (unsigned char)n;
        return 1;
    }
    if (n < 0x10000) {
        out[0] = 0xFC;
        out[1] = (unsigned char)n;
        out[2] = (unsigned char)(n >> 8);
        return 3;
    }
    if (n < 0x1000000) {
        out[0] = 0xFD;
        out[1] = (unsigned char)n;
        out[2] = (unsigned char)(n >> 8);
        out[3] = (unsigned char)(n >> 16);
        return 4;
    }
    out[0] = 0xFE;
    for (int i = 0; i < 8; i++) {
        out[1 + i] = (unsigned char)(n >> (8 * i));
    }
    return 9;
}

/* append a length-encoded string; -1 on memory error */
static int
put_lenenc_str(Buffer *b, const char *s, Py_ssize_t n)
{
    if (buf_reserve(b, n + 9) < 0) {
        return -1;
    }
    b->len += put_lenenc((unsigned char *)b->data + b->len, (uint64_t)n);
    memcpy(b->data + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

/* the UTF-8 bytes of an exact str (strict): 1 and *s, *n set (`*tmp` a new bytes object to release, or NULL);
   0 when it does not encode strictly (the Python path's surrogateescape); -1 on another error */
static int
utf8_of(PyObject *v, const char **s, Py_ssize_t *n, PyObject **tmp)
{
    *tmp = NULL;
    if (PyUnicode_IS_ASCII(v)) { /* an ASCII str is its own UTF-8 */
        *s = (const char *)PyUnicode_DATA(v);
        *n = PyUnicode_GET_LENGTH(v);
        return 1;
    }
    PyObject *enc = PyUnicode_AsUTF8String(v);
    if (enc == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    *tmp = enc;
    *s = PyBytes_AS_STRING(enc);
    *n = PyBytes_GET_SIZE(enc);
    return 1;
}

/* append an exact int's decimal text as a length-encoded string: 1 done, 0 not handled, -1 error */
static int
put_int_text(Buffer *b, PyObject *v)
{
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow) {
        return 0; /* beyond 64 bits: str(v) in Python */
    }
    if (x == -1 && PyErr_Occurred()) {
        return -1;
    }
    char text[32];
    int n = snprintf(text, sizeof text, "%lld", x);
    return put_lenenc_str(b, text, n) < 0 ? -1 : 1;
}

/* append an exact int as the binary integer of `w` bytes: 1 done, 0 not handled (does not fit), -1 error */
static int
put_int_binary(Buffer *b, PyObject *v, int w, int is_unsigned)
{
    uint64_t bits;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow < 0) {
        return 0;
    }
    if (overflow > 0) { /* above 2^63 - 1: fits only 8 unsigned bytes */
        if (w != 8) {
            return 0;
        }
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                return 0;
            }
            return -1;
        }
        bits = u;
    }
    else if (x >= 0) {
        if (w < 8 && (uint64_t)x >> (8 * w)) {
            return 0; /* to_bytes(w, signed=False) overflows */
        }
        bits = (uint64_t)x;
    }
    else {
        if (is_unsigned) {
            return 0; /* to_bytes(signed=False) of a negative int overflows */
        }
        if (w < 8 && x < -((long long)1 << (8 * w - 1))) {
            return 0;
        }
        bits = (uint64_t)x;
    }
    if (buf_reserve(b, 8) < 0) {
        return -1;
    }
    for (int i = 0; i < w; i++) {
        b->data[b->len++] = (char)(unsigned char)(bits >> (8 * i));
    }
    return 1;
}

/* append a float as a binary FLOAT (4) / DOUBLE (8): 1 done, 0 not handled, -1 error */
static int
put_float_binary(Buffer *b, PyObject *v, int ftype)
{
    double x = PyFloat_AS_DOUBLE(v);
    if (buf_reserve(b, 8) < 0) {
        return -1;
    }
    unsigned char *out = (unsigned char *)b->data + b->len;
    if (ftype == T_DOUBLE) {
#if PY_VERSION_HEX >= 0x030B0000
        if (PyFloat_Pack8(x, (char *)out, 1) < 0) {
#else
        if (_PyFloat_Pack8(x, out, 1) < 0) {
#endif
            return -1;
        }
        b->len += 8;
        return 1;
    }
#if PY_VERSION_HEX >= 0x030B0000
    if (PyFloat_Pack4(x, (char *)out, 1) < 0) {
#else
    if (_PyFloat_Pack4(x, out, 1) < 0) {
#endif
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            return 0; /* too large for a float: struct.pack('<f') raises, so does the Python path */
        }
        return -1;
    }
    b->len += 4;
    return 1;
}

/* the binary width of an integer column type, 0 for others */
static int
int_width(long t)
{
    switch (t) {
    case T_TINY:
        return 1;
    case T_SHORT:
    case T_YEAR:
        return 2;
    case T_LONG:
    case T_INT24:
        return 4;
    case T_LONGLONG:
        return 8;
    default:
        return 0;
    }
}

/* a column type whose binary form is not a length-encoded string (messages.NON_TEXT_TYPES) */
static int
non_text(long t)
{
    return int_width(t) || t == T_FLOAT || t == T_DOUBLE || t == T_DATE || t == T_DATETIME || t == T_TIMESTAMP ||
           t == T_TIME;
}

/* append one value of a text row: 1 done, 0 not handled, -1 error */
static int
put_text_value(Buffer *b, PyObject *v)
{
    if (v == Py_None) {
        if (buf_reserve(b, 1) < 0) {
            return -1;
        }
        b->data[b->len++] = (char)0xFB;
        return 1;
    }
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type) {
        const char *s;
        Py_ssize_t n;
        PyObject *tmp;
        int ok = utf8_of(v, &s, &n, &tmp);
        if (ok <= 0) {
            return ok;
        }
        int rc = put_lenenc_str(b, s, n);
        Py_XDECREF(tmp);
        return rc < 0 ? -1 : 1;
    }
    if (t == &PyBytes_Type) {
        return put_lenenc_str(b, PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v)) < 0 ? -1 : 1;
    }
    if (t == &PyLong_Type) {
        return put_int_text(b, v);
    }
    return 0;
}

/* append one non-NULL value of a binary row of column type `ftype`: 1 done, 0 not handled, -1 error */
static int
put_binary_value(Buffer *b, PyObject *v, long ftype, int w, int is_unsigned)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyLong_Type) {
        if (w) {
            return put_int_binary(b, v, w, is_unsigned);
        }
        return non_text(ftype) ? 0 : put_int_text(b, v);
    }
    if (t == &PyFloat_Type) {
        return ftype == T_DOUBLE || ftype == T_FLOAT ? put_float_binary(b, v, (int)ftype) : 0;
    }
    if (non_text(ftype)) {
        return 0;
    }
    if (t == &PyUnicode_Type) {
        const char *s;
        Py_ssize_t n;
        PyObject *tmp;
        int ok = utf8_of(v, &s, &n, &tmp);
        if (ok <= 0) {
            return ok;
        }
        int rc = put_lenenc_str(b, s, n);
        Py_XDECREF(tmp);
        return rc < 0 ? -1 : 1;
    }
    if (t == &PyBytes_Type) {
        return put_lenenc_str(b, PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v)) < 0 ? -1 : 1;
    }
    return 0;
}

PyDoc_STRVAR(frame_rows_doc,
             "frame_rows(rows, seq, width, binary, types, unsigned) -> (bytes, next_seq) or None\n\n"
             "The framed packets of the result rows `rows` (a list or tuple of tuples `width` wide) from sequence\n"
             "id `seq`: binary-protocol rows of column types `types` (unsigned flags `unsigned`) when `binary`,\n"
             "else text-protocol rows; None when a row or value is not one this encoder handles exactly (see\n"
             "the module comment): the Python path then frames them.");

static PyObject *
frame_rows(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "frame_rows(rows, seq, width, binary, types, unsigned)");
        return NULL;
    }
    PyObject *rows = args[0];
    long seq = PyLong_AsLong(args[1]);
    Py_ssize_t width = PyLong_AsSsize_t(args[2]);
    int binary = PyObject_IsTrue(args[3]);
    PyObject *types = args[4], *uns = args[5];
    if (PyErr_Occurred() || binary < 0) {
        return NULL;
    }
    if (!PyTuple_Check(types) || !PyTuple_Check(uns) || (!PyList_CheckExact(rows) && !PyTuple_CheckExact(rows)) ||
        width <= 0 || (binary && PyTuple_GET_SIZE(types) != width)) {
        Py_RETURN_NONE;
    }
    /* per column: type, integer width, unsigned flag */
    long stack_types[STACK_COLUMNS];
    int stack_w[STACK_COLUMNS], stack_u[STACK_COLUMNS];
    long *ftype = stack_types;
    int *w = stack_w, *u = stack_u;
    void *heap = NULL;
    if (binary && width > STACK_COLUMNS) {
        heap = PyMem_Malloc((size_t)width * (sizeof(long) + 2 * sizeof(int)));
        if (heap == NULL) {
            return PyErr_NoMemory();
        }
        ftype = (long *)heap;
        w = (int *)(ftype + width);
        u = w + width;
    }
    if (binary) {
        for (Py_ssize_t i = 0; i < width; i++) {
            ftype[i] = PyLong_AsLong(PyTuple_GET_ITEM(types, i));
            if (ftype[i] == -1 && PyErr_Occurred()) {
                PyMem_Free(heap);
                return NULL;
            }
            w[i] = int_width(ftype[i]);
            u[i] = 0;
            if (i < PyTuple_GET_SIZE(uns)) {
                u[i] = PyObject_IsTrue(PyTuple_GET_ITEM(uns, i));
                if (u[i] < 0) {
                    PyMem_Free(heap);
                    return NULL;
                }
            }
        }
    }
    Py_ssize_t bitmap = (width + 7 + 2) / 8;
    PyObject *const *items = PySequence_Fast_ITEMS(rows);
    Py_ssize_t nrows = PySequence_Fast_GET_SIZE(rows);
    Buffer b = {NULL, 0, 0};
    int handled = 1;
    for (Py_ssize_t r = 0; r < nrows && handled > 0; r++) {
        PyObject *row = items[r];
        if ((!PyTuple_CheckExact(row) && !PyList_CheckExact(row)) || PySequence_Fast_GET_SIZE(row) != width) {
            handled = 0; /* the Python path raises LocalProtocolError */
            break;
        }
        PyObject *const *vals = PySequence_Fast_ITEMS(row);
        if (buf_reserve(&b, 4 + 1 + bitmap) < 0) {
            handled = -1;
            break;
        }
        Py_ssize_t start = b.len;
        b.len += 4; /* the packet header, written below */
        if (binary) {
            Py_ssize_t at = b.len;
            memset(b.data + at, 0, (size_t)(1 + bitmap)); /* row header 0x00, NULL bitmap */
            b.len += 1 + bitmap;
            for (Py_ssize_t i = 0; i < width; i++) {
                PyObject *v = vals[i];
                if (v == Py_None) {
                    b.data[at + 1 + ((i + 2) >> 3)] |= (char)(1 << ((i + 2) & 7));
                    continue;
                }
                handled = put_binary_value(&b, v, ftype[i], w[i], u[i]);
                if (handled <= 0) {
                    break;
                }
            }
        }
        else {
            for (Py_ssize_t i = 0; i < width; i++) {
                handled = put_text_value(&b, vals[i]);
                if (handled <= 0) {
                    break;
                }
            }
        }
        if (handled <= 0) {
            break;
        }
        Py_ssize_t n = b.len - start - 4;
        if (n >= MAX_PAYLOAD) {
            handled = 0; /* split over packets: the Python path */
            break;
        }
        unsigned char *h = (unsigned char *)b.data + start;
        h[0] = (unsigned char)n;
        h[1] = (unsigned char)(n >> 8);
        h[2] = (unsigned char)(n >> 16);
        h[3] = (unsigned char)seq;
        seq = (seq + 1) & 0xFF;
    }
    PyMem_Free(heap);
    if (handled <= 0) {
        PyMem_Free(b.data);
        if (handled < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
    PyMem_Free(b.data);
    if (out == NULL) {
        return NULL;
    }
    PyObject *next = PyLong_FromLong(seq);
    if (next == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, out, next);
    Py_DECREF(out);
    Py_DECREF(next);
    return pair;
}

static PyMethodDef framefast_methods[] = {
    {"frame_rows", (PyCFunction)(void (*)(void))frame_rows, METH_FASTCALL, frame_rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef framefast_module = {
    PyModuleDef_HEAD_INIT, "gtidkit.protocol._framefast",
    "A result set's rows framed as packets in C (see _framefast.c).", -1, framefast_methods,
};

PyMODINIT_FUNC
PyInit__framefast(void)
{
    return PyModule_Create(&framefast_module);
}
