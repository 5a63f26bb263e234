/* gtidkit.binlog._eventfast: the two byte loops of a committing transaction's binary-log encoding in C, for
 * gtidkit/binlog/event_fast.py (used by writer.encode_transaction and row_image.row_encoder).
 *
 * frame(items, start_pos, timestamp, server_id, checksum) -> (bytes, positions) | None
 *     Each item (type_code, flags, body) becomes one event as MySQL writes it into a binlog file
 *     (libs/mysql/binlog/event/binlog_event.h, Log_event_header): timestamp u32, type_code u8, server_id u32,
 *     event_size u32 (header + body + footer), log_pos u32 (the event's end offset in the file), flags u16, all
 *     little-endian, then the body, then with `checksum` the CRC32 (zlib's, as MySQL's) of header and body, u32.
 *     The events follow each other from file offset start_pos; positions = [(begin, end)] per event. The
 *     pure-Python loop of writer.encode_transaction stays the reference (tests/binlog/test_eventfast.py).
 *
 * encode_row(kinds, pres, row) -> bytes | None
 *     One full row image (libs/mysql/binlog/event/rows_event.h: the NULL bitmap of the row's columns, bit i for
 *     column i, then each non-NULL value), as row_image.row_encoder's Python packers give it, for the two column
 *     families a sysbench-like table has: kinds[i] = 1..8 (an integer of that many bytes, little-endian, two's
 *     complement), -1..-8 (the same, signed) or 101 / 102 (a string with a 1- / 2-byte length prefix). pres[i] is
 *     None or a callable applied to a non-NULL value first (strings only).
 *
 * Both answer only what they encode exactly as the Python code does and return None for anything else (the Python
 * path then encodes it, and raises where it raises): a value out of its field's range, an integer value that is
 * not an int, a string value (after pres[i]) that is neither bytes nor an exact str that encodes to UTF-8, a
 * length over the prefix's range, a row of another width, an unknown kind; an exception inside pres[i] is
 * cleared and answered None (the Python path calls it again and raises it).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#define HEADER_LEN 19
#define FOOTER_LEN 4
#define STACK_ITEMS 32
#define U32_MAX 0xFFFFFFFFULL

static inline void
put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* the item's fields, or 0 (None answered) when it is not a (type_code, flags, bytes-like) of the field ranges */
static int
item_fields(PyObject *item, unsigned long *type_code, unsigned long *flags, Py_buffer *view)
{
    if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 3) {
        return 0;
    }
    PyObject *t = PyTuple_GET_ITEM(item, 0), *f = PyTuple_GET_ITEM(item, 1), *b = PyTuple_GET_ITEM(item, 2);
    if (!PyLong_Check(t) || !PyLong_Check(f) || !(PyBytes_Check(b) || PyByteArray_Check(b))) {
        return 0;
    }
    *type_code = PyLong_AsUnsignedLong(t);
    *flags = PyLong_AsUnsignedLong(f);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (*type_code > 0xFF || *flags > 0xFFFF) {
        return 0;
    }
    if (PyObject_GetBuffer(b, view, PyBUF_SIMPLE) < 0) {
        return -1;
    }
    return 1;
}

static PyObject *
frame(PyObject *self, PyObject *args)
{
    PyObject *items, *start_obj, *timestamp_obj, *server_id_obj;
    int checksum;
    if (!PyArg_ParseTuple(args, "OO!O!O!p:frame", &items, &PyLong_Type, &start_obj, &PyLong_Type, &timestamp_obj,
                          &PyLong_Type, &server_id_obj, &checksum)) {
        return NULL;
    }
    /* PyLong_AsUnsignedLongLong refuses a negative or too wide value (no wrapping): declined */
    unsigned long long start = PyLong_AsUnsignedLongLong(start_obj);
    unsigned long long timestamp = PyLong_AsUnsignedLongLong(timestamp_obj);
    unsigned long long server_id = PyLong_AsUnsignedLongLong(server_id_obj);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!PyList_CheckExact(items) || timestamp > U32_MAX || server_id > U32_MAX || start > U32_MAX) {
        Py_RETURN_NONE;
    }
    Py_ssize_t n = PyList_GET_SIZE(items);
    Py_buffer stack_views[STACK_ITEMS];
    unsigned long stack_codes[STACK_ITEMS * 2];
    Py_buffer *views = stack_views;
    unsigned long *codes = stack_codes;
    if (n > STACK_ITEMS) {
        views = PyMem_Malloc(sizeof(Py_buffer) * (size_t)n);
        codes = PyMem_Malloc(sizeof(unsigned long) * 2 * (size_t)n);
        if (views == NULL || codes == NULL) {
            PyMem_Free(views == stack_views ? NULL : views);
            PyMem_Free(codes == stack_codes ? NULL : codes);
            return PyErr_NoMemory();
        }
    }
    PyObject *result = NULL;
    Py_ssize_t got = 0;
    unsigned long long total = 0;
    unsigned long long footer = checksum ? FOOTER_LEN : 0;
    for (; got < n; got++) {
        int ok = item_fields(PyList_GET_ITEM(items, got), &codes[2 * got], &codes[2 * got + 1], &views[got]);
        if (ok < 0) {
            goto done;
        }
        if (ok == 0) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        unsigned long long size = HEADER_LEN + (unsigned long long)views[got].len + footer;
        total += size;
        if (size > U32_MAX || start + total > U32_MAX) { /* event_size and log_pos are u32 */
            got++;
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    PyObject *data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    PyObject *positions = data ? PyList_New(n) : NULL;
    if (positions == NULL) {
        Py_XDECREF(data);
        goto done;
    }
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(data);
    unsigned long long pos = start;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len = views[i].len;
        unsigned long long size = HEADER_LEN + (unsigned long long)len + footer;
        unsigned long long end = pos + size;
        put_u32(p, (uint32_t)timestamp);
        p[4] = (unsigned char)codes[2 * i];
        put_u32(p + 5, (uint32_t)server_id);
        put_u32(p + 9, (uint32_t)size);
        put_u32(p + 13, (uint32_t)end);
        p[17] = (unsigned char)codes[2 * i + 1];
        p[18] = (unsigned char)(codes[2 * i + 1] >> 8);
        memcpy(p + HEADER_LEN, views[i].buf, (size_t)len);
        if (checksum) {
            uLong crc = crc32(0L, p, (uInt)(HEADER_LEN + len));
            put_u32(p + HEADER_LEN + len, (uint32_t)crc);
        }
        PyObject *pair = Py_BuildValue("(KK)", pos, end);
        if (pair == NULL) {
            Py_DECREF(data);
            Py_DECREF(positions);
            goto done;
        }
        PyList_SET_ITEM(positions, i, pair);
        p += size;
        pos = end;
    }
    result = PyTuple_Pack(2, data, positions);
    Py_DECREF(data);
    Py_DECREF(positions);
done:
    for (Py_ssize_t i = 0; i < got; i++) {
        if (views[i].obj != NULL) {
            PyBuffer_Release(&views[i]);
        }
    }
    if (views != stack_views) {
        PyMem_Free(views);
        PyMem_Free(codes);
    }
    return result;
}

/* a growable byte buffer for one row image */
typedef struct {
    unsigned char *data;
    Py_ssize_t len, cap;
    unsigned char stack[512];
} Buffer;

static int
buf_reserve(Buffer *b, Py_ssize_t more)
{
    if (b->len + more <= b->cap) {
        return 0;
    }
    Py_ssize_t cap = b->cap * 2;
    while (cap < b->len + more) {
        cap *= 2;
    }
    unsigned char *data = PyMem_Malloc((size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(data, b->data, (size_t)b->len);
    if (b->data != b->stack) {
        PyMem_Free(b->data);
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

/* 1: the value packed; 0: declined (None answered); -1: an error to raise */
static int
pack_int(Buffer *b, PyObject *v, long kind)
{
    if (!PyLong_Check(v)) {
        return 0;
    }
    int is_signed = kind < 0;
    size_t width = (size_t)(is_signed ? -kind : kind);
    if (buf_reserve(b, (Py_ssize_t)width) < 0) {
        return -1;
    }
    if (_PyLong_AsByteArray((PyLongObject *)v, b->data + b->len, width, 1, is_signed) < 0) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    b->len += (Py_ssize_t)width;
    return 1;
}

static int
pack_string(Buffer *b, PyObject *v, PyObject *pre, long kind)
{
    PyObject *owned = NULL;
    if (pre != Py_None) {
        owned = PyObject_CallOneArg(pre, v);
        if (owned == NULL) {
            PyErr_Clear();
            return 0;
        }
        v = owned;
    }
    const char *raw;
    Py_ssize_t len;
    int rc = 0;
    if (PyBytes_Check(v)) {
        raw = PyBytes_AS_STRING(v);
        len = PyBytes_GET_SIZE(v);
    }
    else if (PyUnicode_CheckExact(v)) {
        raw = PyUnicode_AsUTF8AndSize(v, &len);
        if (raw == NULL) { /* lone surrogates: the Python path's str.encode raises */
            PyErr_Clear();
            goto out;
        }
    }
    else {
        goto out;
    }
    Py_ssize_t prefix = kind - 100;
    if (len >= ((Py_ssize_t)1 << (8 * prefix))) {
        goto out;
    }
    if (buf_reserve(b, prefix + len) < 0) {
        rc = -1;
        goto out;
    }
    b->data[b->len] = (unsigned char)len;
    if (prefix == 2) {
        b->data[b->len + 1] = (unsigned char)(len >> 8);
    }
    memcpy(b->data + b->len + prefix, raw, (size_t)len);
    b->len += prefix + len;
    rc = 1;
out:
    Py_XDECREF(owned);
    return rc;
}

static PyObject *
encode_row(PyObject *self, PyObject *args)
{
    PyObject *kinds, *pres, *row;
    if (!PyArg_ParseTuple(args, "O!O!O:encode_row", &PyTuple_Type, &kinds, &PyTuple_Type, &pres, &row)) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(kinds);
    if (PyTuple_GET_SIZE(pres) != n || !(PyTuple_CheckExact(row) || PyList_CheckExact(row))) {
        Py_RETURN_NONE;
    }
    if (PySequence_Fast_GET_SIZE(row) != n) {
        Py_RETURN_NONE;
    }
    Buffer b;
    b.data = b.stack;
    b.cap = sizeof(b.stack);
    b.len = 0;
    Py_ssize_t nbytes = (n + 7) / 8;
    if (buf_reserve(&b, nbytes) < 0) {
        return NULL;
    }
    memset(b.data, 0, (size_t)nbytes);
    b.len = nbytes;
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* read each value afresh and hold it: a pre function may change a list row (then its width is checked) */
        if (PySequence_Fast_GET_SIZE(row) != n) {
            result = Py_NewRef(Py_None);
            goto out;
        }
        PyObject *v = PySequence_Fast_GET_ITEM(row, i);
        if (v == Py_None) {
            b.data[i / 8] |= (unsigned char)(1 << (i % 8));
            continue;
        }
        long kind = PyLong_AsLong(PyTuple_GET_ITEM(kinds, i));
        if (kind == -1 && PyErr_Occurred()) { /* not a kind: declined */
            PyErr_Clear();
            kind = 0;
        }
        int rc;
        Py_INCREF(v);
        if (kind >= -8 && kind <= 8 && kind != 0) {
            rc = pack_int(&b, v, kind);
        }
        else if (kind == 101 || kind == 102) {
            rc = pack_string(&b, v, PyTuple_GET_ITEM(pres, i), kind);
        }
        else {
            rc = 0;
        }
        Py_DECREF(v);
        if (rc < 0) {
            goto out;
        }
        if (rc == 0) {
            result = Py_NewRef(Py_None);
            goto out;
        }
    }
    result = PyBytes_FromStringAndSize((const char *)b.data, b.len);
out:
    if (b.data != b.stack) {
        PyMem_Free(b.data);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"frame", frame, METH_VARARGS,
     "frame(items, start_pos, timestamp, server_id, checksum) -> (bytes, positions) | None: binlog events"},
    {"encode_row", encode_row, METH_VARARGS,
     "encode_row(kinds, pres, row) -> bytes | None: one full row image of integer / string columns"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_eventfast", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__eventfast(void)
{
    return PyModule_Create(&module);
}
