"""Stored password forms of the authentication plugins, byte-identical to MySQL's ``authentication_string``.

Sources: MySQL ``sql/auth/sql_authentication.cc`` / ``sql/auth/password.cc`` (mysql_native_password: ``*`` +
``HEX(SHA1(SHA1(password)))`` upper case), ``sql/auth/sha2_password.cc`` (caching_sha2_password: ``$A$`` + the
iteration count in thousands as 3 digits + ``$`` + a 20-byte salt + the 43-character SHA-256 crypt digest;
``CACHING_SHA2_PASSWORD_ITERATIONS`` default 5000 -> ``005``), ``mysys/crypt_genhash_impl.cc``
(``generate_user_salt``: random bytes with the high bit cleared, never NUL or ``$``; ``my_crypt_genhash``:
Ulrich Drepper's SHA-256 crypt, "Unix crypt using SHA-256 and SHA-512", with the salt taken whole, not cut to 16);
sha256_password (``sql/auth/sql_authentication.cc``, ``my_crypt_genhash`` with ``CRYPT_MAGIC``): ``$5$`` + the
20-byte salt + ``$`` + the same 43-character digest at 5000 rounds (``SHOW CREATE USER`` prints e.g.
``IDENTIFIED WITH 'sha256_password' AS '$5$<salt>$<digest>'``).

The digest is computed as the public SHA-crypt specification describes; MySQL stores only its final 43 characters,
without the ``$5$rounds=...$salt$`` prefix crypt(3) writes.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = [
    "CACHING_SHA2",
    "NATIVE",
    "PLUGINS",
    "SHA2_ITERATIONS",
    "SHA256",
    "check_password",
    "native_stored",
    "sha2_stored",
    "sha256_crypt_digest",
    "sha256_stored",
    "stored_form",
]

NATIVE = "mysql_native_password"
CACHING_SHA2 = "caching_sha2_password"
SHA256 = "sha256_password"
PLUGINS = (NATIVE, CACHING_SHA2, SHA256)
#: rounds of sha256_password's crypt (``ROUNDS_DEFAULT``; not configurable)
SHA256_ROUNDS = 5000
#: caching_sha2_password_digest_rounds default (MySQL 8.0): stored as ``005`` (thousands)
SHA2_ITERATIONS = 5000
#: ``CRYPT_SALT_LENGTH``: bytes of salt in a ``$A$`` string
SHA2_SALT_LENGTH = 20
#: characters of the SHA-256 crypt digest (32 bytes in the crypt base-64 alphabet)
SHA2_DIGEST_LENGTH = 43
_B64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#: byte triples of the final digest in output order (SHA-crypt spec, SHA-256 variant)
_ORDER = (
    (0, 10, 20),
    (21, 1, 11),
    (12, 22, 2),
    (3, 13, 23),
    (24, 4, 14),
    (15, 25, 5),
    (6, 16, 26),
    (27, 7, 17),
    (18, 28, 8),
    (9, 19, 29),
)


def native_stored(password: str) -> str:
    """The mysql_native_password ``authentication_string`` (``*`` + 40 upper-case hex; ``""`` for no password)."""
    if not password:
        return ""
    return "*" + hashlib.sha1(hashlib.sha1(password.encode()).digest()).hexdigest().upper()


def _repeat(block: bytes, length: int) -> bytes:
    return (block * (length // len(block) + 1))[:length]


def sha256_crypt_digest(password: bytes, salt: bytes, rounds: int) -> str:
    """The 43-character digest of SHA-256 crypt for ``password`` and ``salt`` after ``rounds`` rounds.

    Args:
        password: the clear password, bytes.
        salt: the salt, used whole (MySQL passes 20 bytes; crypt(3) would cut it to 16).
        rounds: the number of rounds (5000 for MySQL's ``$A$005$``).
    """
    b = hashlib.sha256(password + salt + password).digest()
    a = hashlib.sha256(password + salt)
    n = len(password)
    a.update(_repeat(b, n))
    i = n
    while i > 0:
        a.update(b if i & 1 else password)
        i >>= 1
    digest = a.digest()
    p = _repeat(hashlib.sha256(password * n).digest(), n)
    s = _repeat(hashlib.sha256(salt * (16 + digest[0])).digest(), len(salt))
    c = digest
    for r in range(rounds):
        h = hashlib.sha256(p if r & 1 else c)
        if r % 3:
            h.update(s)
        if r % 7:
            h.update(p)
        h.update(c if r & 1 else p)
        c = h.digest()
    out = []
    for x, y, z in _ORDER:
        w = (c[x] << 16) | (c[y] << 8) | c[z]
        for _ in range(4):
            out.append(_B64[w & 0x3F])
            w >>= 6
    w = (c[31] << 8) | c[30]
    for _ in range(3):
        out.append(_B64[w & 0x3F])
        w >>= 6
    return "".join(out)


def _salt() -> bytes:
    """A salt as ``generate_user_salt`` makes one, limited to printable ASCII without ``$``, quote or backslash
    (a subset of MySQL's salts, so the string needs no escaping in a statement or a terminal)."""
    alphabet = bytes(c for c in range(0x21, 0x7F) if c not in b"$'\\\"")
    return bytes(secrets.choice(alphabet) for _ in range(SHA2_SALT_LENGTH))


def sha2_stored(password: str, *, salt: bytes | None = None, iterations: int = SHA2_ITERATIONS) -> str:
    """The caching_sha2_password ``authentication_string``: ``$A$005$`` + salt + digest (``""`` for none).

    Args:
        password: the clear password.
        salt: 20 bytes (random when omitted).
        iterations: rounds, a multiple of 1000 (5000 by default).
    """
    if not password:
        return ""
    salt = salt if salt is not None else _salt()
    digest = sha256_crypt_digest(password.encode(), salt, iterations)
    return f"$A${iterations // 1000:03d}${salt.decode('latin-1')}{digest}"


def sha256_stored(password: str, *, salt: bytes | None = None) -> str:
    """The sha256_password ``authentication_string``: ``$5$`` + salt + ``$`` + digest (``""`` for none).

    Args:
        password: the clear password.
        salt: 20 bytes (random when omitted).
    """
    if not password:
        return ""
    salt = salt if salt is not None else _salt()
    digest = sha256_crypt_digest(password.encode(), salt, SHA256_ROUNDS)
    return f"$5${salt.decode('latin-1')}${digest}"


def stored_form(plugin: str, password: str) -> str:
    """``authentication_string`` for ``password`` under ``plugin``.

    Raises:
        ValueError: an unknown plugin (the caller reports 1524 ER_PLUGIN_IS_NOT_LOADED).
    """
    if plugin == NATIVE:
        return native_stored(password)
    if plugin == CACHING_SHA2:
        return sha2_stored(password)
    if plugin == SHA256:
        return sha256_stored(password)
    raise ValueError(plugin)


def check_password(plugin: str, stored: str, password: str) -> bool:
    """Full authentication: does the clear ``password`` match ``stored`` (``Caching_sha2_password::authenticate``
    re-hashes it with the stored salt and iteration count)? Also reads the ``$pbkdf2-sha256$`` form gtidkit stored
    before its accounts moved into mysql.user."""
    if not stored:
        return password == ""
    if plugin == NATIVE:
        return hmac.compare_digest(native_stored(password), stored)
    if stored.startswith("$A$") and len(stored) == 7 + SHA2_SALT_LENGTH + SHA2_DIGEST_LENGTH:
        try:
            rounds = int(stored[3:6]) * 1000
        except ValueError:
            return False
        salt = stored[7 : 7 + SHA2_SALT_LENGTH].encode("latin-1")
        got = sha256_crypt_digest(password.encode(), salt, rounds)
        return hmac.compare_digest(got, stored[7 + SHA2_SALT_LENGTH :])
    if stored.startswith("$5$") and len(stored) == 4 + SHA2_SALT_LENGTH + SHA2_DIGEST_LENGTH:
        salt = stored[3 : 3 + SHA2_SALT_LENGTH].encode("latin-1")
        got = sha256_crypt_digest(password.encode(), salt, SHA256_ROUNDS)
        return hmac.compare_digest(got, stored[4 + SHA2_SALT_LENGTH :])
    if stored.startswith("$pbkdf2-sha256$"):
        try:
            _, _scheme, iterations, salt_hex, digest = stored.split("$")
            got_b = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt_hex), int(iterations))
        except ValueError:
            return False
        return hmac.compare_digest(got_b.hex(), digest)
    return False
