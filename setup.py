"""Build of the optional compiled hot loops of ``gtidkit binlog show`` (gtidkit/binlog/_scriptfast.c), of its
``--json`` (gtidkit/binlog/_jsonfast.c), of a COM_STMT_EXECUTE's parameters and binary rows
(gtidkit/protocol/_wirefast.c), of a SELECT's row reading (gtidkit/engine/sql/_rowsfast.c, linked to the
system SQLite that Python's sqlite3 module calls), of a result set's row packets (gtidkit/protocol/_framefast.c) and
of a committing transaction's binlog framing and row images (gtidkit/binlog/_eventfast.c, linked to zlib);
everything else is in pyproject.toml. The extensions are optional: without a
C compiler the install goes on and the listing uses its pure-Python loops (the same output, slower)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gtidkit.binlog._scriptfast",
            ["src/gtidkit/binlog/_scriptfast.c"],
            depends=["src/gtidkit/binlog/_fastcommon.h"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "gtidkit.binlog._jsonfast",
            ["src/gtidkit/binlog/_jsonfast.c"],
            depends=["src/gtidkit/binlog/_fastcommon.h"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "gtidkit.protocol._wirefast",
            ["src/gtidkit/protocol/_wirefast.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "gtidkit.engine.sql._rowsfast",
            ["src/gtidkit/engine/sql/_rowsfast.c"],
            libraries=["sqlite3"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "gtidkit.protocol._framefast",
            ["src/gtidkit/protocol/_framefast.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "gtidkit.binlog._eventfast",
            ["src/gtidkit/binlog/_eventfast.c"],
            libraries=["z"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ]
)
