"""Authentication plugins: mysql_native_password and caching_sha2_password (scrambles, stored hashes, RSA).

Sources: MySQL ``sql/auth/sql_authentication.cc`` (``native_password_authenticate``,
``caching_sha2_password_authenticate``), ``sql/auth/sha2_password.cc`` (``generate_sha2_scramble``,
``Caching_sha2_password::fast_authenticate``), ``mysys/crypt_genhash_impl.cc`` (``generate_user_salt``), the
manual's "Caching SHA-2 Pluggable Authentication" and DEVDOC ``page_caching_sha2_authentication_exchanges``.

mysql_native_password::

    client token = SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password)))
    stored       = "*" + hex(SHA1(SHA1(password))).upper()
    check        : SHA1(token XOR SHA1(scramble + stored_digest)) == stored_digest

caching_sha2_password::

    client token = SHA256(password) XOR SHA256(SHA256(SHA256(password)) + scramble)
    fast path    : the server's in-memory cache holds SHA256(SHA256(password)) from an earlier full
                   authentication; check SHA256(token XOR SHA256(cached + scramble)) == cached; answer 0x01 0x03.
    full auth    : answer 0x01 0x04; the client sends the password in clear over TLS (NUL-terminated), or RSA-OAEP
                   encrypted (``(password + NUL) XOR scramble`` repeated) with the server's public key, which it may
                   first request by sending 0x02 (answered 0x01 + PEM).

The stored forms are MySQL's (``*HEX`` and ``$A$005$`` SHA-256 crypt), computed by the engine, which owns the
accounts (:mod:`gtidkit.engine.accounts.passwords`); the wire exchange is here.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from gtidkit.engine.accounts import passwords
from gtidkit.engine.accounts.passwords import CACHING_SHA2, NATIVE, PLUGINS, SHA256
from gtidkit.protocol.messages import SCRAMBLE_LENGTH

__all__ = ["CACHING_SHA2", "NATIVE", "PLUGINS", "SHA256"]

#: caching_sha2_password markers sent in AuthMoreData, and the client's public-key request.
FAST_AUTH_SUCCESS = b"\x03"
PERFORM_FULL_AUTHENTICATION = b"\x04"
REQUEST_PUBLIC_KEY = b"\x02"
#: sha256_password's request for the RSA public key (``sha256_password_authenticate``: a 1-byte packet of 1)
SHA256_REQUEST_PUBLIC_KEY = b"\x01"


#: the scramble's characters: printable ASCII but ``$`` (93 of them)
_SCRAMBLE_ALPHABET = bytes(c for c in range(0x21, 0x7F) if c != 0x24)


def generate_scramble() -> bytes:
    """20 random bytes without NUL and ``$`` (printable-ASCII range, as MySQL's ``generate_user_salt``), uniform
    over :data:`_SCRAMBLE_ALPHABET`: one ``os.urandom`` read per connection (random bytes below twice the
    alphabet's size, taken modulo it), not one per character."""
    n = len(_SCRAMBLE_ALPHABET)
    out = bytearray()
    while len(out) < SCRAMBLE_LENGTH:
        out += bytes(_SCRAMBLE_ALPHABET[b % n] for b in secrets.token_bytes(2 * SCRAMBLE_LENGTH) if b < 2 * n)
    return bytes(out[:SCRAMBLE_LENGTH])


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


# ------------------------------------------------------------------ mysql_native_password
def native_stored(password: str) -> str:
    """The ``authentication_string`` of a mysql_native_password account (``*`` + 40 hex; ``""`` if no password)."""
    return passwords.native_stored(password)


def native_token(password: str, scramble: bytes) -> bytes:
    """What a client sends for ``password`` (empty for an empty password)."""
    if not password:
        return b""
    h1 = hashlib.sha1(password.encode()).digest()
    h2 = hashlib.sha1(h1).digest()
    return _xor(h1, hashlib.sha1(scramble + h2).digest())


def native_verify(stored: str, scramble: bytes, token: bytes) -> bool:
    """True when ``token`` proves knowledge of the password behind ``stored`` for this ``scramble``."""
    if not stored:
        return token == b""
    if len(token) != 20 or len(stored) != 41:
        return False
    digest = bytes.fromhex(stored[1:])
    h1 = _xor(token, hashlib.sha1(scramble + digest).digest())
    return hmac.compare_digest(hashlib.sha1(h1).digest(), digest)


# ------------------------------------------------------------------ caching_sha2_password
def sha2_stored(password: str) -> str:
    """The stored form of a caching_sha2_password account: MySQL's ``$A$005$`` + salt + digest (``""`` if none)."""
    return passwords.sha2_stored(password)


def sha2_check_password(stored: str, password: str) -> bool:
    """Full authentication: does the clear ``password`` match ``stored``?"""
    return passwords.check_password(CACHING_SHA2, stored, password)


def sha2_cache_entry(password: str) -> bytes:
    """SHA256(SHA256(password)): what the fast-path cache keeps after a full authentication."""
    return hashlib.sha256(hashlib.sha256(password.encode()).digest()).digest()


def sha2_token(password: str, scramble: bytes) -> bytes:
    """What a client sends for ``password`` (empty for an empty password)."""
    if not password:
        return b""
    m1 = hashlib.sha256(password.encode()).digest()
    m2 = hashlib.sha256(m1).digest()
    return _xor(m1, hashlib.sha256(m2 + scramble).digest())


def sha2_fast_verify(cached: bytes, scramble: bytes, token: bytes) -> bool:
    """Fast path: check ``token`` against the cached SHA256(SHA256(password))."""
    if len(token) != 32:
        return False
    m1 = _xor(token, hashlib.sha256(cached + scramble).digest())
    return hmac.compare_digest(hashlib.sha256(m1).digest(), cached)


def rsa_decrypt_password(private_key_pem: bytes, ciphertext: bytes, scramble: bytes) -> str | None:
    """Decrypt caching_sha2's RSA-OAEP(SHA-1) payload and undo the scramble XOR; None when it does not decrypt.

    The plaintext is ``(password + NUL) XOR scramble`` (the scramble repeated over the length).
    """
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    key = serialization.load_pem_private_key(private_key_pem, password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        return None
    try:
        plain = key.decrypt(
            ciphertext,
            padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()), algorithm=hashes.SHA1(), label=None),
        )
    except ValueError:
        return None
    clear = bytes(b ^ scramble[i % len(scramble)] for i, b in enumerate(plain))
    return clear.rstrip(b"\0").decode("utf-8", "replace")


def clear_password(data: bytes) -> str:
    """The password a client sent in clear (over TLS): NUL-terminated."""
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")
