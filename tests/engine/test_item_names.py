"""Select-list item names: MySQL names an unaliased expression by its text as written (manual, "SELECT Statement":
"the column name is the expression text").

Calls whose arguments are user variables, and ``IS [NOT] NULL`` tests, carry no token positions in sqlglot's
tree; the names must still be the whole text.
"""

from __future__ import annotations

import pytest

from tests.engine.datadirs import open_new


@pytest.mark.parametrize(
    "item",
    [
        "UPPER(@a)",
        "GTID_SUBTRACT(@@GLOBAL.gtid_executed, @a)",
        "CONCAT( 'a' , @a )",
        "NOW() IS NOT NULL",
        "1 IS NULL",
        "(1) IS NOT NULL",
        "@a IS NULL",
        "UPPER(@a) IS NULL",
        "LENGTH(UPPER(@a)) + 1",
        "CONNECTION_ID()",
        # parentheses and other quotes inside a literal do not count (the span scan skips quoted runs)
        "CONCAT(@a, ')')",
        "CONCAT(@a, '(\"`', \"'(\")",
        "(LENGTH(@a) + LENGTH(')(')) * 2",
    ],
    ids=lambda item: item,
)
def test_unaliased_item_is_named_by_its_text(tmp_path, item: str) -> None:
    with open_new(tmp_path / "d", log_bin=False) as server, server.session() as s:
        s.execute("SET @a = ''")
        (res,) = s.execute(f"SELECT {item}")
        assert [c.name for c in res.columns] == [item]


def test_item_name_of_a_long_literal_with_parentheses_inside(tmp_path) -> None:
    """A 4 MB literal full of parentheses in a call: the name is the whole text as written, and the value is right
    (the span scan skips the quoted run in one regular-expression match; the per-character loop it replaced spent
    ~5 s of CPU on the 17 MB query of tests/protocol/test_real_clients.py's >16 MiB packet test)."""
    literal = "x)(" * 1_400_000
    item = f"LENGTH('{literal}')"
    with open_new(tmp_path / "d", log_bin=False) as server, server.session() as s:
        (res,) = s.execute(f"SELECT {item}")
    assert res.rows == [(len(literal),)]
    assert res.columns[0].name == item
