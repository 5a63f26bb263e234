/* gtidkit.engine.sql._rowsfast: a SELECT's rows read straight from SQLite, for Executor._run_plan.
 *
 * What `conn.execute(sql, binds).fetchall()` gives (sqlite3 module, CPython 3.11: Modules/_sqlite/cursor.c),
 * with two differences that matter on a server's read path:
 *   - the GIL is released around the first sqlite3_step only (where SQLite sorts, groups and finds the first
 *     row) and then every ROWS_PER_RELEASE rows, instead of around every step: under the GIL the module's
 *     per-row release/re-acquire made the worker's threads hand the GIL over at every row of a range scan;
 *   - its own statements, prepared once per SQL text (SQLITE_PREPARE_PERSISTENT) and bound by index from
 *     the parameter names found at preparation.
 * Everything else is the module's: the values (INTEGER -> int, FLOAT -> float, TEXT -> str decoded as UTF-8,
 * BLOB -> bytes, NULL -> None), the errors (the sqlite3 exception class the module maps SQLite's result code to,
 * the message sqlite3_errmsg gives, `sqlite_errorcode` = the extended code). Whatever the module would answer
 * differently from the above - a value needing an adapter, a text that is no UTF-8, several statements, a
 * statement that writes, a missing parameter, a connection with a text_factory or row_factory - makes run()
 * return None with nothing run, or (text that is no UTF-8) with the statement reset: the caller then runs it
 * the usual way, which answers exactly.
 *
 * The sqlite3* is read from the sqlite3.Connection object: CPython's pysqlite_Connection starts with
 * `PyObject_HEAD; sqlite3 *db;` (3.8 to 3.13, Modules/_sqlite/connection.h), which this file is only built
 * for. Reader() refuses a connection unless the _sqlite3 module and this one call the same SQLite library
 * (dlsym through the module's own handle finds this file's sqlite3_step) and that pointer names the
 * connection's main file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <dlfcn.h>
#include <sqlite3.h>
#include <string.h>

#if PY_VERSION_HEX < 0x03080000 || PY_VERSION_HEX >= 0x030E0000
#error "_rowsfast reads pysqlite_Connection's first field: built for CPython 3.8 to 3.13 only"
#endif
#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *
Py_NewRef(PyObject *o)
{
    Py_INCREF(o);
    return o;
}
#endif

/* the start of CPython's pysqlite_Connection (Modules/_sqlite/connection.h) */
typedef struct {
    PyObject_HEAD
    sqlite3 *db;
} ConnectionHead;

/* rows read between two releases of the GIL after the first step */
#define ROWS_PER_RELEASE 256

typedef struct {
    sqlite3_stmt *st;
    PyObject *names; /* tuple of str: parameter i + 1's name without its ':' */
} Prepared;

typedef struct {
    PyObject_HEAD
    PyObject *conn;  /* the sqlite3.Connection */
    PyObject *cache; /* dict: SQL text -> capsule of a Prepared */
    Py_ssize_t floats; /* FLOAT values in the rows the last run() returned */
} Reader;

/* the sqlite3 module's exception classes, by what _pysqlite_seterror raises */
static PyObject *exc_database, *exc_operational, *exc_integrity, *exc_data, *exc_internal, *exc_interface;

static void
prepared_free(PyObject *capsule)
{
    Prepared *p = (Prepared *)PyCapsule_GetPointer(capsule, "gtidkit.rowsfast.prepared");
    if (p == NULL) {
        PyErr_Clear();
        return;
    }
    sqlite3_finalize(p->st);
    Py_XDECREF(p->names);
    PyMem_Free(p);
}

static sqlite3 *
reader_db(Reader *self)
{
    return ((ConnectionHead *)self->conn)->db;
}

/* raise what the sqlite3 module raises for result code `rc` (_pysqlite_seterror, Modules/_sqlite/util.c) */
static PyObject *
raise_sqlite(sqlite3 *db, int rc)
{
    PyObject *cls;
    switch (rc & 0xFF) {
    case SQLITE_INTERNAL:
    case SQLITE_NOTFOUND:
        cls = exc_internal;
        break;
    case SQLITE_NOMEM:
        return PyErr_NoMemory();
    case SQLITE_ERROR:
    case SQLITE_PERM:
    case SQLITE_ABORT:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_READONLY:
    case SQLITE_INTERRUPT:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
    case SQLITE_EMPTY:
    case SQLITE_SCHEMA:
        cls = exc_operational;
        break;
    case SQLITE_CORRUPT:
        cls = exc_database;
        break;
    case SQLITE_TOOBIG:
        cls = exc_data;
        break;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
        cls = exc_integrity;
        break;
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
        cls = exc_interface;
        break;
    default:
        cls = exc_database;
        break;
    }
    PyObject *exc = PyObject_CallFunction(cls, "s", sqlite3_errmsg(db));
    if (exc == NULL) {
        return NULL;
    }
    PyObject *code = PyLong_FromLong(sqlite3_extended_errcode(db));
    if (code == NULL || PyObject_SetAttrString(exc, "sqlite_errorcode", code) < 0) {
        Py_XDECREF(code);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(code);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

/* the capsule of the cached statement of `sql` (a new reference: a statement in use outlives close() and the
   cache's clearing), prepared on first use; NULL with no error: the module's way must answer */
static PyObject *
reader_prepare(Reader *self, PyObject *sql)
{
    PyObject *capsule = PyDict_GetItemWithError(self->cache, sql);
    if (capsule != NULL) {
        return Py_NewRef(capsule);
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(sql, &len);
    if (text == NULL) {
        return NULL;
    }
    sqlite3 *db = reader_db(self);
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = sqlite3_prepare_v3(db, text, (int)len + 1, SQLITE_PREPARE_PERSISTENT, &st, &tail);
    Py_END_ALLOW_THREADS
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        raise_sqlite(db, rc);
        return NULL;
    }
    if (st == NULL || !sqlite3_stmt_readonly(st) || sqlite3_column_count(st) == 0) {
        sqlite3_finalize(st);
        return NULL; /* empty, a statement that writes, or one without a result: the module's way */
    }
    for (; tail != NULL && *tail; tail++) {
        if (!(*tail == ' ' || *tail == '\t' || *tail == '\n' || *tail == '\r' || *tail == '\f' || *tail == ';')) {
            sqlite3_finalize(st);
            return NULL; /* more than one statement: the module refuses it */
        }
    }
    int count = sqlite3_bind_parameter_count(st);
    PyObject *names = PyTuple_New(count);
    if (names == NULL) {
        sqlite3_finalize(st);
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        const char *name = sqlite3_bind_parameter_name(st, i + 1);
        if (name == NULL || name[0] != ':') {
            Py_DECREF(names);
            sqlite3_finalize(st);
            return NULL; /* a positional or non-colon placeholder: not what the executor writes */
        }
        PyObject *s = PyUnicode_FromString(name + 1);
        if (s == NULL) {
            Py_DECREF(names);
            sqlite3_finalize(st);
            return NULL;
        }
        PyTuple_SET_ITEM(names, i, s);
    }
    Prepared *p = PyMem_Malloc(sizeof(Prepared));
    if (p == NULL) {
        Py_DECREF(names);
        sqlite3_finalize(st);
        PyErr_NoMemory();
        return NULL;
    }
    p->st = st;
    p->names = names;
    capsule = PyCapsule_New(p, "gtidkit.rowsfast.prepared", prepared_free);
    if (capsule == NULL) {
        Py_DECREF(names);
        sqlite3_finalize(st);
        PyMem_Free(p);
        return NULL;
    }
    if (PyDict_GET_SIZE(self->cache) >= 256) {
        PyDict_Clear(self->cache);
    }
    if (PyDict_SetItem(self->cache, sql, capsule) < 0) {
        Py_DECREF(capsule);
        return NULL;
    }
    return capsule;
}

/* bind binds[name] for every parameter; 1 bound, 0 the module's way must answer, -1 error */
static int
bind_all(Prepared *p, PyObject *binds)
{
    sqlite3_stmt *st = p->st;
    Py_ssize_t n = PyTuple_GET_SIZE(p->names);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyDict_GetItemWithError(binds, PyTuple_GET_ITEM(p->names, i));
        if (v == NULL) {
            return PyErr_Occurred() ? -1 : 0; /* missing: the module raises its ProgrammingError */
        }
        int rc;
        int at = (int)i + 1;
        if (v == Py_None) {
            rc = sqlite3_bind_null(st, at);
        }
        else if (PyLong_CheckExact(v)) {
            int overflow = 0;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (overflow) {
                return 0; /* the module raises OverflowError */
            }
            if (x == -1 && PyErr_Occurred()) {
                return -1;
            }
            rc = sqlite3_bind_int64(st, at, x);
        }
        else if (PyFloat_CheckExact(v)) {
            rc = sqlite3_bind_double(st, at, PyFloat_AS_DOUBLE(v));
        }
        else if (PyUnicode_CheckExact(v)) {
            Py_ssize_t len;
            const char *s = PyUnicode_AsUTF8AndSize(v, &len);
            if (s == NULL) {
                PyErr_Clear();
                return 0; /* lone surrogates: the module raises its own error */
            }
            if (len > INT_MAX) {
                return 0;
            }
            rc = sqlite3_bind_text(st, at, s, (int)len, SQLITE_TRANSIENT);
        }
        else if (PyBytes_CheckExact(v)) {
            if (PyBytes_GET_SIZE(v) > INT_MAX) {
                return 0;
            }
            rc = sqlite3_bind_blob(st, at, PyBytes_AS_STRING(v), (int)PyBytes_GET_SIZE(v), SQLITE_TRANSIENT);
        }
        else {
            return 0; /* adapters, subclasses, buffers: the module's way */
        }
        if (rc != SQLITE_OK) {
            return 0;
        }
    }
    return 1;
}

/* one value of the current row, read under the database mutex (see read_row) */
typedef struct {
    int type;
    int nbytes;
    union {
        sqlite3_int64 i;
        double d;
        const void *p;
    } v;
} Cell;

/* columns read in one hold of the database mutex; wider rows take the mutex per value (read_row_wide) */
#define CELLS 32

/* one row as the module builds it, each value through the sqlite3_column_* call that locks and unlocks the
   database mutex; NULL with UnicodeDecodeError for text that is no UTF-8 */
static PyObject *
read_row_wide(sqlite3_stmt *st, int ncols, Py_ssize_t *floats)
{
    PyObject *row = PyTuple_New(ncols);
    if (row == NULL) {
        return NULL;
    }
    for (int i = 0; i < ncols; i++) {
        PyObject *v;
        switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER:
            v = PyLong_FromLongLong(sqlite3_column_int64(st, i));
            break;
        case SQLITE_FLOAT:
            v = PyFloat_FromDouble(sqlite3_column_double(st, i));
            ++*floats;
            break;
        case SQLITE_TEXT: {
            const char *text = (const char *)sqlite3_column_text(st, i);
            int nbytes = sqlite3_column_bytes(st, i);
            v = text == NULL ? PyErr_NoMemory() : PyUnicode_DecodeUTF8(text, nbytes, NULL);
            break;
        }
        case SQLITE_BLOB: {
            const void *blob = sqlite3_column_blob(st, i);
            int nbytes = sqlite3_column_bytes(st, i);
            if (blob == NULL && nbytes) {
                v = PyErr_NoMemory();
            }
            else {
                v = PyBytes_FromStringAndSize(blob, nbytes);
            }
            break;
        }
        default:
            v = Py_NewRef(Py_None);
            break;
        }
        if (v == NULL) {
            Py_DECREF(row);
            return NULL;
        }
        PyTuple_SET_ITEM(row, i, v);
    }
    return row;
}

/* one row as the module builds it (INTEGER -> int, FLOAT -> float, TEXT -> str, BLOB -> bytes, NULL -> None);
   NULL with UnicodeDecodeError for text that is no UTF-8.

   The values are what sqlite3_column_type / _int64 / _double / _text / _blob / _bytes give, read through
   sqlite3_column_value and the sqlite3_value_* calls with the database mutex held once for the row (each
   sqlite3_column_* call takes and releases it: three lock pairs per text value); the Python objects are built
   after the mutex is released, so no Python code (a finalizer the allocation runs) ever runs while it is held.
   The text and blob pointers stay valid until the statement steps again, as those of sqlite3_column_text do. */
static PyObject *
read_row(sqlite3 *db, sqlite3_stmt *st, int ncols, Py_ssize_t *floats)
{
    if (ncols > CELLS) {
        return read_row_wide(st, ncols, floats);
    }
    Cell cells[CELLS];
    int nomem = 0;
    sqlite3_mutex *mutex = sqlite3_db_mutex(db); /* NULL unless SQLite serializes the connection */
    sqlite3_mutex_enter(mutex);
    for (int i = 0; i < ncols; i++) {
        sqlite3_value *value = sqlite3_column_value(st, i);
        Cell *c = &cells[i];
        c->type = sqlite3_value_type(value);
        switch (c->type) {
        case SQLITE_INTEGER:
            c->v.i = sqlite3_value_int64(value);
            break;
        case SQLITE_FLOAT:
            c->v.d = sqlite3_value_double(value);
            break;
        case SQLITE_TEXT:
            c->v.p = sqlite3_value_text(value);
            c->nbytes = sqlite3_value_bytes(value);
            nomem |= c->v.p == NULL;
            break;
        case SQLITE_BLOB:
            c->v.p = sqlite3_value_blob(value);
            c->nbytes = sqlite3_value_bytes(value);
            nomem |= c->v.p == NULL && c->nbytes;
            break;
        default:
            break;
        }
    }
    sqlite3_mutex_leave(mutex);
    if (nomem) {
        return PyErr_NoMemory();
    }
    PyObject *row = PyTuple_New(ncols);
    if (row == NULL) {
        return NULL;
    }
    for (int i = 0; i < ncols; i++) {
        PyObject *v;
        Cell *c = &cells[i];
        switch (c->type) {
        case SQLITE_INTEGER:
            v = PyLong_FromLongLong(c->v.i);
            break;
        case SQLITE_FLOAT:
            v = PyFloat_FromDouble(c->v.d);
            ++*floats;
            break;
        case SQLITE_TEXT:
            v = PyUnicode_DecodeUTF8((const char *)c->v.p, c->nbytes, NULL);
            break;
        case SQLITE_BLOB:
            v = PyBytes_FromStringAndSize(c->v.p, c->nbytes);
            break;
        default:
            v = Py_NewRef(Py_None);
            break;
        }
        if (v == NULL) {
            Py_DECREF(row);
            return NULL;
        }
        PyTuple_SET_ITEM(row, i, v);
    }
    return row;
}

static int
plain_connection(Reader *self)
{
    /* the module builds rows this way only without a row_factory and with text_factory str */
    PyObject *tf = PyObject_GetAttrString(self->conn, "text_factory");
    if (tf == NULL) {
        return -1;
    }
    int plain = tf == (PyObject *)&PyUnicode_Type;
    Py_DECREF(tf);
    if (!plain) {
        return 0;
    }
    PyObject *rf = PyObject_GetAttrString(self->conn, "row_factory");
    if (rf == NULL) {
        return -1;
    }
    plain = rf == Py_None;
    Py_DECREF(rf);
    return plain;
}

static PyObject *run_prepared(sqlite3 *db, Prepared *p, PyObject *binds, Py_ssize_t *floats);

PyDoc_STRVAR(reader_run_doc,
             "run(sql, binds) -> list of tuples, or None\n\n"
             "The rows of the SELECT `sql` with its named parameters bound from the dict `binds`, as\n"
             "conn.execute(sql, binds).fetchall() gives them; None when that call must answer instead.");

static PyObject *
reader_run(Reader *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_CheckExact(args[0]) || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "run(sql: str, binds: dict)");
        return NULL;
    }
    sqlite3 *db = reader_db(self);
    if (db == NULL) {
        Py_RETURN_NONE; /* closed: the module raises ProgrammingError */
    }
    int plain = plain_connection(self);
    if (plain <= 0) {
        if (plain < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *capsule = reader_prepare(self, args[0]);
    if (capsule == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    Py_ssize_t floats = 0;
    PyObject *rows =
        run_prepared(db, (Prepared *)PyCapsule_GetPointer(capsule, "gtidkit.rowsfast.prepared"), args[1], &floats);
    Py_DECREF(capsule); /* the last reference when close() ran meanwhile: the statement is finalized here */
    self->floats = floats; /* after any run() nested in this one (a function of the statement) */
    return rows;
}

/* run_prepared: the rows of the prepared statement `p` bound from `binds` (see reader_run) */
static PyObject *
run_prepared(sqlite3 *db, Prepared *p, PyObject *binds, Py_ssize_t *floats)
{
    if (p == NULL) {
        return NULL;
    }
    sqlite3_stmt *st = p->st;
    if (sqlite3_stmt_busy(st)) {
        Py_RETURN_NONE; /* already running (a function of this statement runs it again): the module's way */
    }
    int bound = bind_all(p, binds);
    if (bound <= 0) {
        sqlite3_clear_bindings(st);
        if (bound < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *rows = PyList_New(0);
    if (rows == NULL) {
        sqlite3_clear_bindings(st);
        return NULL;
    }
    int ncols = sqlite3_column_count(st);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = sqlite3_step(st);
    Py_END_ALLOW_THREADS
    int since_release = 0;
    while (rc == SQLITE_ROW) {
        if (PyErr_Occurred()) {
            goto failed; /* a callback left an exception */
        }
        PyObject *row = read_row(db, st, ncols, floats);
        if (row == NULL) {
            if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                /* the module raises OperationalError("Could not decode to UTF-8 ...") here, which the executor
                   answers by running the statement again with another text_factory: let the module do both */
                PyErr_Clear();
                sqlite3_reset(st);
                sqlite3_clear_bindings(st);
                Py_DECREF(rows);
                Py_RETURN_NONE;
            }
            goto failed;
        }
        int bad = PyList_Append(rows, row);
        Py_DECREF(row);
        if (bad) {
            goto failed;
        }
        if (++since_release >= ROWS_PER_RELEASE) {
            since_release = 0;
            Py_BEGIN_ALLOW_THREADS
            rc = sqlite3_step(st);
            Py_END_ALLOW_THREADS
        }
        else {
            rc = sqlite3_step(st);
        }
    }
    if (PyErr_Occurred()) {
        goto failed;
    }
    if (rc != SQLITE_DONE) {
        raise_sqlite(db, rc);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        Py_DECREF(rows);
        return NULL;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rows;
failed:
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    Py_DECREF(rows);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------------------
 * run_sorted: ORDER BY (and DISTINCT) of a SELECT's result columns done on the rows read, by SQLite's own rules.
 *
 * SQLite orders with sqlite3MemCompare under each term's collation (vdbeaux.c): NULL first, then INTEGER and
 * REAL by value (an integer against a real exactly, sqlite3IntFloatCompare), then TEXT under the collation, then
 * BLOB by memcmp and length; DESC reverses a term, NULLs included. Its sorter is stable (vdbesort.c merges the
 * records in the order they were written, ties keeping that order), and SELECT DISTINCT ... ORDER BY keeps the first
 * row of each set of equal rows in scan order and sorts those. The three built-in collations are BINARY (memcmp over
 * the shorter length, then the lengths), NOCASE (sqlite3StrNICmp: ASCII letters folded, stopping at a NUL byte,
 * then the lengths) and RTRIM (BINARY after trailing spaces are dropped). A term's collation is read from SQLite
 * itself (the declared collation of the table column the result column comes from); any other collation, or a
 * result column that is no table column, makes run_sorted decline (None) before anything runs.
 * --------------------------------------------------------------------------------------------------------- */

enum { COLL_BINARY = 0, COLL_NOCASE = 1, COLL_RTRIM = 2 };

typedef struct {
    int index; /* result column */
    int coll;
    int desc;
} SortKey;

typedef struct {
    SortKey *keys;
    int nkeys;
    int failed; /* a value of another type than the reader builds: TypeError */
} SortCtx;

static const unsigned char *
text_bytes(PyObject *v, Py_ssize_t *n)
{
    if (PyUnicode_IS_ASCII(v)) {
        *n = PyUnicode_GET_LENGTH(v);
        return (const unsigned char *)PyUnicode_DATA(v);
    }
    return (const unsigned char *)PyUnicode_AsUTF8AndSize(v, n);
}

static int
class_of(PyObject *v)
{
    if (v == Py_None) {
        return 0;
    }
    if (PyLong_CheckExact(v) || PyFloat_CheckExact(v)) {
        return 1;
    }
    if (PyUnicode_CheckExact(v)) {
        return 2;
    }
    if (PyBytes_CheckExact(v)) {
        return 3;
    }
    return -1;
}

/* sqlite3UpperToLower for UTF-8 text: ASCII capitals to small letters, every other byte unchanged */
static unsigned char fold_table[256];

static void
init_fold_table(void)
{
    for (int c = 0; c < 256; c++) {
        fold_table[c] = (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
}

/* TEXT under a built-in collation: <0, 0, >0 (see the comment above) */
static int
compare_text(const unsigned char *x, Py_ssize_t na, const unsigned char *y, Py_ssize_t nb, int coll)
{
    if (coll == COLL_RTRIM) {
        while (na && x[na - 1] == ' ') {
            na--;
        }
        while (nb && y[nb - 1] == ' ') {
            nb--;
        }
    }
    Py_ssize_t n = na < nb ? na : nb;
    int r;
    if (coll == COLL_NOCASE) {
        Py_ssize_t k = n;
        while (k-- > 0 && *x != 0 && fold_table[*x] == fold_table[*y]) {
            x++;
            y++;
        }
        r = k < 0 ? 0 : fold_table[*x] - fold_table[*y];
    }
    else {
        r = n ? memcmp(x, y, (size_t)n) : 0;
    }
    if (r == 0) {
        return na < nb ? -1 : na > nb ? 1 : 0;
    }
    return r < 0 ? -1 : 1;
}

static int
int_float_cmp(long long i, double r)
{
    if (r < -9223372036854775808.0) {
        return 1;
    }
    if (r >= 9223372036854775808.0) {
        return -1;
    }
    long long y = (long long)r;
    if (i < y) {
        return -1;
    }
    if (i > y) {
        return 1;
    }
    double s = (double)i;
    return s < r ? -1 : s > r ? 1 : 0;
}

static int
compare_values(PyObject *a, PyObject *b, int coll, SortCtx *ctx)
{
    int ca = class_of(a), cb = class_of(b);
    if (ca < 0 || cb < 0) {
        ctx->failed = 1;
        return 0;
    }
    if (ca != cb) {
        return ca < cb ? -1 : 1;
    }
    switch (ca) {
    case 0:
        return 0;
    case 1: {
        int fa = PyFloat_CheckExact(a), fb = PyFloat_CheckExact(b);
        if (fa && fb) {
            double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
            return x < y ? -1 : x > y ? 1 : 0;
        }
        if (!fa && !fb) {
            long long x = PyLong_AsLongLong(a), y = PyLong_AsLongLong(b);
            if (PyErr_Occurred()) { /* beyond 64 bits: not a value SQLite returns */
                PyErr_Clear();
                ctx->failed = 1;
                return 0;
            }
            return x < y ? -1 : x > y ? 1 : 0;
        }
        long long i = PyLong_AsLongLong(fa ? b : a);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            ctx->failed = 1;
            return 0;
        }
        int r = int_float_cmp(i, PyFloat_AS_DOUBLE(fa ? a : b));
        return fa ? -r : r;
    }
    case 2: {
        Py_ssize_t na, nb;
        const unsigned char *x = text_bytes(a, &na), *y = text_bytes(b, &nb);
        if (x == NULL || y == NULL) {
            PyErr_Clear();
            ctx->failed = 1;
            return 0;
        }
        return compare_text(x, na, y, nb, coll);
    }
    default: {
        Py_ssize_t na = PyBytes_GET_SIZE(a), nb = PyBytes_GET_SIZE(b);
        Py_ssize_t n = na < nb ? na : nb;
        int r = n ? memcmp(PyBytes_AS_STRING(a), PyBytes_AS_STRING(b), (size_t)n) : 0;
        if (r == 0) {
            return na < nb ? -1 : na > nb ? 1 : 0;
        }
        return r < 0 ? -1 : 1;
    }
    }
}

static int
compare_rows(PyObject *a, PyObject *b, SortCtx *ctx)
{
    for (int k = 0; k < ctx->nkeys; k++) {
        SortKey *key = &ctx->keys[k];
        int r = compare_values(PyTuple_GET_ITEM(a, key->index), PyTuple_GET_ITEM(b, key->index), key->coll, ctx);
        if (r) {
            return key->desc ? -r : r;
        }
    }
    return 0;
}

/* a row with its first key's text read once (text != NULL: a TEXT value) */
typedef struct {
    PyObject *row;
    const unsigned char *text;
    Py_ssize_t len;
} Entry;

static int
compare_entries(const Entry *a, const Entry *b, SortCtx *ctx)
{
    if (a->text != NULL && b->text != NULL) {
        SortKey *key = &ctx->keys[0];
        int r = compare_text(a->text, a->len, b->text, b->len, key->coll);
        if (r) {
            return key->desc ? -r : r;
        }
        if (ctx->nkeys == 1) {
            return 0;
        }
    }
    return compare_rows(a->row, b->row, ctx);
}

/* stable merge sort of items[0..n) (tmp: room for n / 2 + 1) */
static void
merge_sort(Entry *items, Entry *tmp, Py_ssize_t n, SortCtx *ctx)
{
    if (n < 2) {
        return;
    }
    if (n <= 8) { /* insertion sort: stable */
        for (Py_ssize_t i = 1; i < n; i++) {
            Entry v = items[i];
            Py_ssize_t j = i;
            while (j > 0 && compare_entries(&items[j - 1], &v, ctx) > 0) {
                items[j] = items[j - 1];
                j--;
            }
            items[j] = v;
        }
        return;
    }
    Py_ssize_t half = n / 2;
    merge_sort(items, tmp, half, ctx);
    merge_sort(items + half, tmp, n - half, ctx);
    if (compare_entries(&items[half - 1], &items[half], ctx) <= 0) {
        return; /* already in order */
    }
    memcpy(tmp, items, (size_t)half * sizeof(Entry));
    Py_ssize_t i = 0, j = half, o = 0;
    while (i < half && j < n) {
        if (compare_entries(&items[j], &tmp[i], ctx) < 0) {
            items[o++] = items[j++];
        }
        else {
            items[o++] = tmp[i++];
        }
    }
    while (i < half) {
        items[o++] = tmp[i++];
    }
}

/* the collation of result column `i` of `st`: its table column's declared collation; -1 for no table column or
   another collation than BINARY, NOCASE and RTRIM */
static int
column_collation(sqlite3 *db, sqlite3_stmt *st, int i)
{
    const char *dbname = sqlite3_column_database_name(st, i);
    const char *table = sqlite3_column_table_name(st, i);
    const char *column = sqlite3_column_origin_name(st, i);
    if (dbname == NULL || table == NULL || column == NULL) {
        return -1;
    }
    const char *coll = NULL;
    if (sqlite3_table_column_metadata(db, dbname, table, column, NULL, &coll, NULL, NULL, NULL) != SQLITE_OK ||
        coll == NULL) {
        return -1;
    }
    if (sqlite3_stricmp(coll, "BINARY") == 0) {
        return COLL_BINARY;
    }
    if (sqlite3_stricmp(coll, "NOCASE") == 0) {
        return COLL_NOCASE;
    }
    if (sqlite3_stricmp(coll, "RTRIM") == 0) {
        return COLL_RTRIM;
    }
    return -1;
}

PyDoc_STRVAR(reader_run_sorted_doc,
             "run_sorted(sql, binds, keys, distinct) -> list of tuples, or None\n\n"
             "The rows of the SELECT `sql` (run as run() does) in the order SQLite's ORDER BY of the result columns\n"
             "`keys` (a tuple of (column index, descending)) gives them, and with `distinct` only the first of\n"
             "each set of equal rows (`keys` then name every result column): what the same SELECT with that\n"
             "ORDER BY (and DISTINCT) returns. None, with nothing run, when run() declines or a key's column is\n"
             "no table column or has another collation than BINARY, NOCASE or RTRIM.");

static PyObject *
reader_run_sorted(Reader *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyUnicode_CheckExact(args[0]) || !PyDict_Check(args[1]) || !PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "run_sorted(sql: str, binds: dict, keys: tuple, distinct: bool)");
        return NULL;
    }
    int distinct = PyObject_IsTrue(args[3]);
    if (distinct < 0) {
        return NULL;
    }
    sqlite3 *db = reader_db(self);
    if (db == NULL) {
        Py_RETURN_NONE;
    }
    int plain = plain_connection(self);
    if (plain <= 0) {
        if (plain < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *capsule = reader_prepare(self, args[0]);
    if (capsule == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    Prepared *p = (Prepared *)PyCapsule_GetPointer(capsule, "gtidkit.rowsfast.prepared");
    PyObject *rows = NULL;
    SortKey keys[16];
    Py_ssize_t nkeys = PyTuple_GET_SIZE(args[2]);
    int ncols = p == NULL ? 0 : sqlite3_column_count(p->st);
    if (p == NULL || nkeys == 0 || nkeys > 16 || (distinct && nkeys != ncols)) {
        goto decline;
    }
    for (Py_ssize_t k = 0; k < nkeys; k++) {
        PyObject *key = PyTuple_GET_ITEM(args[2], k);
        long index;
        int desc;
        if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2 ||
            (index = PyLong_AsLong(PyTuple_GET_ITEM(key, 0))) < 0 || index >= ncols ||
            (desc = PyObject_IsTrue(PyTuple_GET_ITEM(key, 1))) < 0) {
            if (PyErr_Occurred()) {
                Py_DECREF(capsule);
                return NULL;
            }
            goto decline;
        }
        keys[k].index = (int)index;
        keys[k].desc = desc;
        keys[k].coll = column_collation(db, p->st, (int)index);
        if (keys[k].coll < 0) {
            goto decline;
        }
    }
    if (distinct) { /* the keys name every result column, each once */
        unsigned char seen[16] = {0};
        for (Py_ssize_t k = 0; k < nkeys; k++) {
            if (seen[keys[k].index]++) {
                goto decline;
            }
        }
    }
    Py_ssize_t floats = 0;
    rows = run_prepared(db, p, args[1], &floats);
    Py_DECREF(capsule);
    if (rows == NULL || rows == Py_None) {
        return rows;
    }
    self->floats = floats;
    Py_ssize_t n = PyList_GET_SIZE(rows);
    SortCtx ctx = {keys, (int)nkeys, 0};
    if (n > 1) {
        PyObject **items = ((PyListObject *)rows)->ob_item;
        Entry *entries = PyMem_Malloc((size_t)(n + n / 2 + 1) * sizeof(Entry));
        if (entries == NULL) {
            Py_DECREF(rows);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = PyTuple_GET_ITEM(items[i], keys[0].index);
            entries[i].row = items[i];
            entries[i].text = NULL;
            if (PyUnicode_CheckExact(v)) {
                entries[i].text = text_bytes(v, &entries[i].len);
                if (entries[i].text == NULL) {
                    PyErr_Clear();
                    ctx.failed = 1;
                }
            }
        }
        merge_sort(entries, entries + n, n, &ctx);
        for (Py_ssize_t i = 0; i < n; i++) {
            items[i] = entries[i].row;
        }
        PyMem_Free(entries);
    }
    if (distinct && n > 1 && !ctx.failed) {
        PyObject **items = ((PyListObject *)rows)->ob_item;
        Py_ssize_t o = 1;
        for (Py_ssize_t i = 1; i < n; i++) {
            if (compare_rows(items[o - 1], items[i], &ctx) == 0) {
                Py_DECREF(items[i]);
            }
            else {
                items[o++] = items[i];
            }
        }
        Py_SET_SIZE(rows, o);
    }
    if (ctx.failed) {
        Py_DECREF(rows);
        PyErr_SetString(PyExc_TypeError, "run_sorted: a value SQLite does not return");
        return NULL;
    }
    return rows;
decline:
    Py_DECREF(capsule);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(reader_close_doc, "close()\n\nFinalize the cached statements (before or after the connection closes).");

static PyObject *
reader_close(Reader *self, PyObject *Py_UNUSED(ignored))
{
    PyDict_Clear(self->cache);
    Py_RETURN_NONE;
}

/* 1 when the _sqlite3 module calls this file's SQLite library, 0 when not (or it cannot tell) */
static int
same_library(void)
{
    PyObject *mod = PyImport_ImportModule("_sqlite3");
    if (mod == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *file = PyObject_GetAttrString(mod, "__file__");
    Py_DECREF(mod);
    if (file == NULL) {
        PyErr_Clear();
        return 0; /* built into the interpreter: cannot tell */
    }
    const char *path = PyUnicode_AsUTF8(file);
    int same = 0;
    if (path != NULL) {
        void *handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
        if (handle != NULL) {
            same = dlsym(handle, "sqlite3_step") == (void *)&sqlite3_step;
            dlclose(handle);
        }
    }
    else {
        PyErr_Clear();
    }
    Py_DECREF(file);
    return same;
}

static int
reader_init(Reader *self, PyObject *args, PyObject *kwds)
{
    PyObject *conn;
    static char *kwlist[] = {"conn", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Reader", kwlist, &conn)) {
        return -1;
    }
    PyObject *sqlite3_mod = PyImport_ImportModule("sqlite3");
    if (sqlite3_mod == NULL) {
        return -1;
    }
    PyObject *cls = PyObject_GetAttrString(sqlite3_mod, "Connection");
    Py_DECREF(sqlite3_mod);
    if (cls == NULL) {
        return -1;
    }
    int ok = PyObject_TypeCheck(conn, (PyTypeObject *)cls);
    Py_DECREF(cls);
    if (!ok) {
        PyErr_SetString(PyExc_TypeError, "Reader(conn): a sqlite3.Connection is needed");
        return -1;
    }
    if (!same_library()) {
        PyErr_SetString(PyExc_RuntimeError, "the sqlite3 module does not call the SQLite library this reader calls");
        return -1;
    }
    sqlite3 *db = ((ConnectionHead *)conn)->db;
    if (db == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Reader(conn): the connection is closed");
        return -1;
    }
    Py_XSETREF(self->conn, Py_NewRef(conn));
    if (self->cache == NULL) {
        self->cache = PyDict_New();
        if (self->cache == NULL) {
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(reader_main_file_doc,
             "main_file() -> str\n\nsqlite3_db_filename(db, 'main') of the connection (\"\" for an in-memory one).");

static PyObject *
reader_main_file(Reader *self, PyObject *Py_UNUSED(ignored))
{
    sqlite3 *db = reader_db(self);
    if (db == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the connection is closed");
        return NULL;
    }
    const char *name = sqlite3_db_filename(db, "main");
    return PyUnicode_FromString(name ? name : "");
}

static int
reader_traverse(Reader *self, visitproc visit, void *arg)
{
    Py_VISIT(self->conn);
    Py_VISIT(self->cache);
    return 0;
}

static int
reader_clear(Reader *self)
{
    Py_CLEAR(self->cache); /* statements first: they belong to the connection's database */
    Py_CLEAR(self->conn);
    return 0;
}

static void
reader_dealloc(Reader *self)
{
    PyObject_GC_UnTrack(self);
    reader_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef reader_members[] = {
    {"floats", T_PYSSIZET, offsetof(Reader, floats), READONLY,
     "FLOAT values (Python floats) in the rows the last run() returned"},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef reader_methods[] = {
    {"run", (PyCFunction)(void (*)(void))reader_run, METH_FASTCALL, reader_run_doc},
    {"run_sorted", (PyCFunction)(void (*)(void))reader_run_sorted, METH_FASTCALL, reader_run_sorted_doc},
    {"close", (PyCFunction)reader_close, METH_NOARGS, reader_close_doc},
    {"main_file", (PyCFunction)reader_main_file, METH_NOARGS, reader_main_file_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gtidkit.engine.sql._rowsfast.Reader",
    .tp_basicsize = sizeof(Reader),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Reader(conn): SELECT rows of one sqlite3.Connection read by prepared statements of its own.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)reader_init,
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_traverse = (traverseproc)reader_traverse,
    .tp_clear = (inquiry)reader_clear,
    .tp_methods = reader_methods,
    .tp_members = reader_members,
};

PyDoc_STRVAR(uniform_width_doc,
             "uniform_width(rows, n) -> bool\n\n"
             "True when `rows` is a list of tuples that are each `n` values wide (what `set(map(len, rows)) ==\n"
             "{n}` says of such a list); False for anything else, which the caller then checks its own way.");

static PyObject *
uniform_width(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "uniform_width(rows, n)");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[1]);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *rows = args[0];
    if (!PyList_CheckExact(rows)) {
        Py_RETURN_FALSE;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(rows); i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != n) {
            Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

PyDoc_STRVAR(set_slots_doc,
             "set_slots(obj, names, values) -> None\n\n"
             "object.__setattr__(obj, name, value) for each name of the tuple `names` and value of the tuple\n"
             "`values` (as long), in order: the generic attribute setter, whatever the type's own __setattr__ (a\n"
             "frozen dataclass's) says, without a call through object.__setattr__'s wrapper per value.");

static PyObject *
set_slots(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "set_slots(obj, names, values)");
        return NULL;
    }
    PyObject *obj = args[0], *names = args[1], *values = args[2];
    if (!PyTuple_CheckExact(names) || !PyTuple_CheckExact(values) ||
        PyTuple_GET_SIZE(names) != PyTuple_GET_SIZE(values)) {
        PyErr_SetString(PyExc_TypeError, "set_slots: names and values must be tuples of the same length");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "set_slots: attribute names must be str");
            return NULL;
        }
        if (PyObject_GenericSetAttr(obj, name, PyTuple_GET_ITEM(values, i)) < 0) {
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef rowsfast_functions[] = {
    {"uniform_width", (PyCFunction)(void (*)(void))uniform_width, METH_FASTCALL, uniform_width_doc},
    {"set_slots", (PyCFunction)(void (*)(void))set_slots, METH_FASTCALL, set_slots_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef rowsfast_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "gtidkit.engine.sql._rowsfast",
    .m_doc = "A SELECT's rows read straight from SQLite (see _rowsfast.c).",
    .m_size = -1,
    .m_methods = rowsfast_functions,
};

PyMODINIT_FUNC
PyInit__rowsfast(void)
{
    init_fold_table();
    PyObject *sqlite3_mod = PyImport_ImportModule("sqlite3");
    if (sqlite3_mod == NULL) {
        return NULL;
    }
    exc_database = PyObject_GetAttrString(sqlite3_mod, "DatabaseError");
    exc_operational = PyObject_GetAttrString(sqlite3_mod, "OperationalError");
    exc_integrity = PyObject_GetAttrString(sqlite3_mod, "IntegrityError");
    exc_data = PyObject_GetAttrString(sqlite3_mod, "DataError");
    exc_internal = PyObject_GetAttrString(sqlite3_mod, "InternalError");
    exc_interface = PyObject_GetAttrString(sqlite3_mod, "InterfaceError");
    Py_DECREF(sqlite3_mod);
    if (!exc_database || !exc_operational || !exc_integrity || !exc_data || !exc_internal || !exc_interface) {
        return NULL;
    }
    if (PyType_Ready(&ReaderType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&rowsfast_module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObject(m, "Reader", Py_NewRef((PyObject *)&ReaderType)) < 0) {
        Py_DECREF(&ReaderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
