"""SHA2 / SHA / SHA1 / MD5 / CRC32 / HEX / UNHEX / TO_BASE64 / FROM_BASE64 / UUID_TO_BIN / BIN_TO_UUID / INET_ATON /
INET_NTOA: each expected value from the MySQL 8.4 manual's examples.

- RM8 "Encryption and Compression Functions": ``SHA2('abc', 224)`` = ``23097d22...``; ``SHA1('abc')`` =
  ``a9993e364706816aba3e25717850c26c9cd0d89d``; ``MD5('testing')`` = ``ae2b1fca515949e5d54fb22b8ed95575``; SHA2
  with a length other than 224/256/384/512/0 is NULL.
- RM8 "Mathematical Functions": ``CRC32('MySQL')`` = 3259397556, ``CRC32('mysql')`` = 2501908538.
- RM8 "String Functions": ``HEX('abc')`` = ``616263``, ``HEX(255)`` = ``FF``, ``UNHEX('4D7953514C')`` = ``MySQL``,
  ``TO_BASE64('abc')`` = ``YWJj``, ``FROM_BASE64(TO_BASE64('abc'))`` = ``abc``.
- RM8 "Miscellaneous Functions": ``UUID_TO_BIN('6ccd780c-baba-1026-9564-5b8c656024db')`` in hex
  ``6CCD780CBABA102695645B8C656024DB``, with swap flag 1 ``1026BABA6CCD780C95645B8C656024DB``, BIN_TO_UUID with the
  same flag back; ``INET_ATON('10.0.5.9')`` = 167773449, ``INET_NTOA(167773449)`` = ``10.0.5.9``, ``INET_ATON('127.1')``
  = 2130706433 ("a short-form IP address").
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError

UUID = "6ccd780c-baba-1026-9564-5b8c656024db"


@pytest.fixture
def s(open_server):
    session = open_server().session()
    yield session
    session.close()


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("SHA2('abc', 224)", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
        ("SHA2('abc', 256)", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("SHA2('abc', 0)", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("SHA2('abc', 1)", None),
        ("SHA2(NULL, 256)", None),
        ("LENGTH(SHA2('abc', 512))", 128),
        ("SHA1('abc')", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("SHA('abc')", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("MD5('testing')", "ae2b1fca515949e5d54fb22b8ed95575"),
        ("CRC32('MySQL')", 3259397556),
        ("CRC32('mysql')", 2501908538),
        ("HEX('abc')", "616263"),
        ("HEX(255)", "FF"),
        ("UNHEX('4D7953514C')", b"MySQL"),
        ("TO_BASE64('abc')", "YWJj"),
        ("FROM_BASE64(TO_BASE64('abc'))", b"abc"),
        (f"HEX(UUID_TO_BIN('{UUID}'))", "6CCD780CBABA102695645B8C656024DB"),
        (f"HEX(UUID_TO_BIN('{UUID}', 1))", "1026BABA6CCD780C95645B8C656024DB"),
        (f"BIN_TO_UUID(UUID_TO_BIN('{UUID}'))", UUID),
        (f"BIN_TO_UUID(UUID_TO_BIN('{UUID}', 1), 1)", UUID),
        ("INET_ATON('10.0.5.9')", 167773449),
        ("INET_NTOA(167773449)", "10.0.5.9"),
        ("INET_ATON('127.1')", 2130706433),
    ],
)
def test_manual_examples(s, expr, value) -> None:
    assert s.execute(f"SELECT {expr}")[0].rows == [(value,)]


def test_uuid_to_bin_rejects_text_that_is_no_uuid(s) -> None:
    # RM8: "If the argument is not a valid string-format UUID, an error occurs" (ER_WRONG_VALUE_FOR_TYPE)
    with pytest.raises(MySQLError) as exc:
        s.execute("SELECT UUID_TO_BIN('not-a-uuid')")
    assert exc.value.code == 1411
