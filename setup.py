"""Build of the optional compiled hot loop of ``gtidkit binlog show`` (gtidkit/binlog/_scriptfast.c); everything
else is in pyproject.toml. The extension is optional: without a C compiler the install goes on and the listing
uses its pure-Python loop (the same output, slower)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gtidkit.binlog._scriptfast",
            ["src/gtidkit/binlog/_scriptfast.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
