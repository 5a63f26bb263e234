"""Auth plugins against independent client implementations (PyMySQL's _auth) and MySQL's documented hashes."""

from __future__ import annotations

import re

import pymysql._auth as client_auth
import pytest

from gtidkit.engine import Server
from gtidkit.engine.accounts.bootstrap import create_root
from gtidkit.engine.accounts.store import Account
from gtidkit.protocol import auth
from gtidkit.protocol.tls import generate_certs, rsa_keys

SCRAMBLE = auth.generate_scramble()


def test_scramble_shape() -> None:
    for _ in range(50):
        s = auth.generate_scramble()
        assert len(s) == 20 and b"\0" not in s and b"$" not in s


def test_native_stored_matches_mysql() -> None:
    # MySQL 5.7 manual, PASSWORD('password') / mysql.user for mysql_native_password
    assert auth.native_stored("password") == "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
    assert auth.native_stored("") == ""


@pytest.mark.parametrize("password", ["password", "pässwörd", "x" * 100])
def test_native_token_verifies_pymysql_client(password: str) -> None:
    token = client_auth.scramble_native_password(password.encode(), SCRAMBLE)
    assert token == auth.native_token(password, SCRAMBLE)
    assert auth.native_verify(auth.native_stored(password), SCRAMBLE, token)
    assert not auth.native_verify(auth.native_stored(password + "!"), SCRAMBLE, token)
    assert not auth.native_verify(auth.native_stored(password), auth.generate_scramble(), token)


@pytest.mark.parametrize("password", ["s3cret", "ü" * 40])
def test_sha2_fast_path_against_pymysql_client(password: str) -> None:
    token = client_auth.scramble_caching_sha2(password.encode(), SCRAMBLE)
    assert token == auth.sha2_token(password, SCRAMBLE)
    cached = auth.sha2_cache_entry(password)
    assert auth.sha2_fast_verify(cached, SCRAMBLE, token)
    assert not auth.sha2_fast_verify(auth.sha2_cache_entry("other"), SCRAMBLE, token)


def test_sha2_stored_is_salted_and_checks() -> None:
    a, b = auth.sha2_stored("pw"), auth.sha2_stored("pw")
    assert a != b and "pw" not in a
    assert auth.sha2_check_password(a, "pw") and not auth.sha2_check_password(a, "pW")
    assert auth.sha2_check_password("", "") and not auth.sha2_check_password("", "x")


def test_rsa_exchange_with_pymysql_encryption(tmp_path) -> None:  # type: ignore[no-untyped-def]
    generate_certs(tmp_path, "8.0.36")
    keys = rsa_keys(tmp_path)
    assert keys is not None
    ciphertext = client_auth.sha2_rsa_encrypt(b"top secret", SCRAMBLE, keys[1])
    assert auth.rsa_decrypt_password(keys[0], ciphertext, SCRAMBLE) == "top secret"
    assert auth.rsa_decrypt_password(keys[0], b"\0" * 256, SCRAMBLE) is None


def test_certs_created_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    first = generate_certs(tmp_path, "8.0.36")
    assert set(first) == {
        "ca.pem",
        "ca-key.pem",
        "server-cert.pem",
        "server-key.pem",
        "client-cert.pem",
        "client-key.pem",
        "private_key.pem",
        "public_key.pem",
    }
    assert (tmp_path / "server-key.pem").stat().st_mode & 0o777 == 0o600
    assert generate_certs(tmp_path, "8.0.36") == []


def test_account_store(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Accounts live in mysql.user (hashed, never the clear password) and survive a restart."""
    engine = Server.open(tmp_path, log_bin=True, gtid_mode="ON")
    try:
        create_root(engine, "rootpw")
        s = engine.session()
        s.execute("CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password BY 'apppw'")
        s.execute("CREATE USER 'app'@'127.0.0.1' IDENTIFIED BY 'local'")
        rows = s.execute("SELECT user, host, authentication_string FROM mysql.user ORDER BY user, host")[
            -1
        ].rows
        assert [r[:2] for r in rows] == [("app", "%"), ("app", "127.0.0.1"), ("root", "localhost")]
        # MySQL's stored forms: mysql_native_password '*' + 40 upper-case hex digits, caching_sha2_password
        # '$A$005$' + a 20-byte random salt + 43 characters of digest (the salt may spell anything: look for the
        # whole clear passwords only)
        stored = {(r[0], r[1]): r[2] for r in rows}
        assert re.fullmatch(r"\*[0-9A-F]{40}", stored["app", "%"]), stored
        assert all(
            v.startswith("$A$005$") and len(v) == 70 for k, v in stored.items() if k != ("app", "%")
        ), stored
        assert not any(pw in v for v in stored.values() for pw in ("apppw", "local", "rootpw")), stored
        with pytest.raises(Exception) as exc:
            s.execute("CREATE USER app@'%' IDENTIFIED BY 'x'")
        assert getattr(exc.value, "code", None) == 1396
        assert s.execute("DROP USER IF EXISTS nobody")[-1].warnings[0].code == 3162
    finally:
        engine.shutdown()
    engine = Server.open(tmp_path, log_bin=True, gtid_mode="ON")
    try:
        again = engine.accounts
        assert again.find("root", "127.0.0.1") is not None
        assert again.find("root", "10.0.0.1") is None
        assert again.find("app", "127.0.0.1").host == "127.0.0.1"  # type: ignore[union-attr]
        assert again.find("app", "10.1.2.3").host == "%"  # type: ignore[union-attr]
    finally:
        engine.shutdown()
    assert Account("u", "10.0.%", auth.NATIVE, "").matches_host("10.0.3.4")
