"""Hashing and encoding functions clients and tools call: SHA2, SHA / SHA1, CRC32, HEX, TO_BASE64 / FROM_BASE64,
UUID_TO_BIN / BIN_TO_UUID, INET_ATON / INET_NTOA, as SQLite UDFs (NULL in -> NULL out, as in MySQL).

Sources: RM8 "Encryption and Compression Functions" (SHA2: "The second argument indicates the desired bit length
of the result, which must have a value of 224, 256, 384, 512, or 0 (which is equivalent to 256). If either
argument is NULL or the hash length is not one of the permitted values, the return value is NULL"; SHA1 / SHA),
"String Functions" (HEX of a number: "a hexadecimal string representation of the value of N treated as a longlong
(BIGINT) number"; TO_BASE64 / FROM_BASE64: lines of 76 characters joined by newlines), "Mathematical Functions"
(CRC32: "a 32-bit unsigned value"), "Miscellaneous Functions" (UUID_TO_BIN / BIN_TO_UUID with the swap flag,
INET_ATON / INET_NTOA).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import zlib
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from gtidkit.engine.sql.function_table import register, rows_from
from gtidkit.mysql_errors import mysql_error

__all__ = ["UDFS"]


def _bytes(v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v).encode("utf-8", "surrogateescape")


_SHA2 = {
    0: hashlib.sha256,
    224: hashlib.sha224,
    256: hashlib.sha256,
    384: hashlib.sha384,
    512: hashlib.sha512,
}


def sha2(s: Any, length: Any) -> str | None:
    """SHA2(str, hash_length): the lowercase hex digest, or NULL for NULL input or an unsupported length."""
    if s is None or length is None:
        return None
    try:
        fn = _SHA2.get(int(length))
    except (TypeError, ValueError):
        return None
    return None if fn is None else fn(_bytes(s)).hexdigest()


def sha1(s: Any) -> str | None:
    """SHA1(str) / SHA(str): 40 lowercase hex digits."""
    return None if s is None else hashlib.sha1(_bytes(s)).hexdigest()


def crc32(s: Any) -> int | None:
    """CRC32(expr): the unsigned 32-bit cyclic redundancy check of the argument as a string."""
    return None if s is None else zlib.crc32(_bytes(s)) & 0xFFFFFFFF


def hex_(v: Any) -> str | None:
    """HEX(N_or_S): a number as a 64-bit two's-complement BIGINT in hex (rounded first), a string byte by byte."""
    if v is None:
        return None
    if isinstance(v, (int, float, Decimal)) and not isinstance(v, bool):
        n = int(Decimal(str(v)).to_integral_value(ROUND_HALF_UP)) if not isinstance(v, int) else v
        n = max(min(n, 2**64 - 1), -(2**63))  # out of range saturates as the longlong conversion does
        return format(n & 0xFFFFFFFFFFFFFFFF, "X")
    return _bytes(v).hex().upper()


def to_base64(s: Any) -> str | None:
    """TO_BASE64(str): base-64 text, a newline after every 76 characters."""
    if s is None:
        return None
    text = base64.b64encode(_bytes(s)).decode("ascii")
    return "\n".join(text[i : i + 76] for i in range(0, len(text), 76))


def from_base64(s: Any) -> bytes | None:
    """FROM_BASE64(str): the decoded bytes, NULL for text that is not base-64 (whitespace is skipped)."""
    if s is None:
        return None
    text = re.sub(rb"\s+", b"", _bytes(s))
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


_UUID = re.compile(
    r"\{?([0-9a-fA-F]{8})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{12})\}?"
)


def uuid_to_bin(s: Any, swap: Any = 0) -> bytes | None:
    """UUID_TO_BIN(string_uuid[, swap_flag]): 16 bytes; swap_flag=1 moves time-high and time-mid first.

    Raises:
        MySQLError: 1411 "Incorrect string value: '...' for function uuid_to_bin" for text that is not a UUID.
    """
    if s is None:
        return None
    text = _bytes(s).decode("utf-8", "replace")
    m = _UUID.fullmatch(text)
    if m is None or (text.startswith("{") != text.endswith("}")) or text.count("-") not in (0, 4):
        raise mysql_error(1411, "string", text, "uuid_to_bin")
    raw = bytes.fromhex("".join(m.groups()))
    if swap:
        raw = raw[6:8] + raw[4:6] + raw[0:4] + raw[8:]
    return raw


def bin_to_uuid(b: Any, swap: Any = 0) -> str | None:
    """BIN_TO_UUID(binary_uuid[, swap_flag]): the dashed lowercase text (swap_flag=1 undoes UUID_TO_BIN's swap).

    Raises:
        MySQLError: 1411 "Incorrect string value: '...' for function bin_to_uuid" for a value not 16 bytes long.
    """
    if b is None:
        return None
    raw = _bytes(b)
    if len(raw) != 16:
        raise mysql_error(1411, "string", raw.hex(), "bin_to_uuid")
    if swap:
        raw = raw[4:8] + raw[2:4] + raw[0:2] + raw[8:]
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def inet_aton(s: Any) -> int | None:
    """INET_ATON(expr): the IPv4 address as a number; short forms as MySQL (``127.1`` = 127.0.0.1); NULL if invalid."""
    if s is None:
        return None
    parts = _bytes(s).decode("utf-8", "replace").split(".")
    if not 1 <= len(parts) <= 4 or not all(p.isdigit() and int(p) <= 255 for p in parts):
        return None
    nums = [int(p) for p in parts]
    # "127.1" is 127.0.0.1: the last part fills the low byte, the others the high bytes in order
    padded = nums[:-1] + [0] * (4 - len(nums)) + nums[-1:]
    return (padded[0] << 24) | (padded[1] << 16) | (padded[2] << 8) | padded[3]


def inet_ntoa(n: Any) -> str | None:
    """INET_NTOA(expr): dotted-quad text of a number in 0 .. 2**32-1, else NULL."""
    if n is None:
        return None
    try:
        v = int(n)
    except (TypeError, ValueError):
        return None
    if not 0 <= v <= 0xFFFFFFFF:
        return None
    return ".".join(str((v >> s) & 0xFF) for s in (24, 16, 8, 0))


#: name -> (argument count, implementation); -1 = variable arguments
UDFS: dict[str, tuple[int, Callable[..., Any]]] = {
    "SHA2": (2, sha2),
    "SHA": (1, sha1),
    "SHA1": (1, sha1),
    "CRC32": (1, crc32),
    "HEX": (1, hex_),
    "TO_BASE64": (1, to_base64),
    "FROM_BASE64": (1, from_base64),
    "UUID_TO_BIN": (-1, uuid_to_bin),
    "BIN_TO_UUID": (-1, bin_to_uuid),
    "INET_ATON": (1, inet_aton),
    "INET_NTOA": (1, inet_ntoa),
}

register(*rows_from(UDFS))
