"""Select-list item names: MySQL names an unaliased expression by its text as written (manual, "SELECT Statement":
"the column name is the expression text").

Calls whose arguments are user variables, and ``IS [NOT] NULL`` tests, carry no token positions in sqlglot's
tree; the names must still be the whole text.
"""

from __future__ import annotations

import pytest

from gtidkit.engine import Server


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
    ],
)
def test_unaliased_item_is_named_by_its_text(tmp_path, item: str) -> None:
    with Server.open(tmp_path / "d", log_bin=False) as server, server.session() as s:
        s.execute("SET @a = ''")
        (res,) = s.execute(f"SELECT {item}")
        assert [c.name for c in res.columns] == [item]
