/* gtidkit.protocol._framefast: a text result set's rows framed as packets in one C pass, for
 * ServerConnection.send_result_set (protocol/connection.py).
 *
 * frame_rows(rows, seq, width) gives the bytes that encode_text_rows (the rows of a COM_QUERY's result set) then
 * framing (a 4-byte header: payload length (3 bytes, little-endian) and the sequence id) give, and the next sequence
 * id; the Python functions in protocol/messages.py stay the reference (tests/protocol/test_framefast.py compares
 * both). Binary-protocol rows (COM_STMT_EXECUTE) are _wirefast.c's binary_rows (the one compiled copy of that
 * framing, measured faster: bench/RESULTS.md, h-fixed).
 *
 * It answers only what it encodes exactly as they do, and returns None for anything else, which the Python path
 * then frames (and raises on, where it raises): rows that are not a list or tuple of exact tuples / lists `width`
 * wide, a row payload of 16 MiB - 1 or more (split over several packets), and any value other than
 *   - None (0xFB),
 *   - str (exact type) as length-encoded UTF-8 (a str that does not encode strictly - lone surrogates, which the
 *     Python path writes with surrogateescape - is left to it),
 *   - bytes (exact type) as length-encoded bytes,
 *   - int (exact type, not bool) as its decimal text.
 * MySQL's wire format: https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_com_query_response_text_resultset_row.html
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* the largest payload of one packet (longer ones are split: the Python path's business) */
#define MAX_PAYLOAD 0xFFFFFF

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

PyDoc_STRVAR(frame_rows_doc,
             "frame_rows(rows, seq, width) -> (bytes, next_seq) or None\n\n"
             "The framed text-protocol packets of the result rows `rows` (a list or tuple of tuples `width` wide)\n"
             "from sequence id `seq`; None when a row or value is not one this encoder handles exactly (see the\n"
             "module comment): the Python path then frames them.");

static PyObject *
frame_rows(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "frame_rows(rows, seq, width)");
        return NULL;
    }
    PyObject *rows = args[0];
    long seq = PyLong_AsLong(args[1]);
    Py_ssize_t width = PyLong_AsSsize_t(args[2]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if ((!PyList_CheckExact(rows) && !PyTuple_CheckExact(rows)) || width <= 0) {
        Py_RETURN_NONE;
    }
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
        if (buf_reserve(&b, 4) < 0) {
            handled = -1;
            break;
        }
        Py_ssize_t start = b.len;
        b.len += 4; /* the packet header, written below */
        for (Py_ssize_t i = 0; i < width; i++) {
            handled = put_text_value(&b, vals[i]);
            if (handled <= 0) {
                break;
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
    "A text result set's rows framed as packets in C (see _framefast.c).", -1, framefast_methods,
};

PyMODINIT_FUNC
PyInit__framefast(void)
{
    return PyModule_Create(&framefast_module);
}
