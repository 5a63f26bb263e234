"""TLS material of a datadir, created as MySQL's ``auto_generate_certs`` and
``caching_sha2_password_auto_generate_rsa_keys`` do, and the server's ``ssl.SSLContext``.

Source: MySQL manual "Creating SSL and RSA Certificates and Keys using MySQL" (files ``ca.pem``, ``ca-key.pem``,
``server-cert.pem``, ``server-key.pem``, ``client-cert.pem``, ``client-key.pem``, ``private_key.pem``,
``public_key.pem``; 2048-bit RSA; self-signed CA with ``MySQL_Server_<version>_Auto_Generated_CA_Certificate``
as common name; created only when none of them exist). Uses the ``cryptography`` package.
"""

from __future__ import annotations

import datetime as dt
import os
import ssl
from pathlib import Path

CA_CERT, CA_KEY = "ca.pem", "ca-key.pem"
SERVER_CERT, SERVER_KEY = "server-cert.pem", "server-key.pem"
CLIENT_CERT, CLIENT_KEY = "client-cert.pem", "client-key.pem"
RSA_PRIVATE, RSA_PUBLIC = "private_key.pem", "public_key.pem"
KEY_BITS = 2048
VALIDITY_DAYS = 3650


def _key():  # type: ignore[no-untyped-def]
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)


def _pem_key(key) -> bytes:  # type: ignore[no-untyped-def]
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )


def _write(path: Path, data: bytes, private: bool) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _cert(subject_cn: str, key, issuer_cn: str, issuer_key, *, ca: bool):  # type: ignore[no-untyped-def]
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject_cn)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_cn)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=VALIDITY_DAYS))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    return builder.sign(issuer_key, hashes.SHA256())


def generate_certs(datadir: str | Path, server_version: str) -> list[str]:
    """Create the CA, server and client certificates and the RSA key pair in ``datadir`` when none exist.

    Args:
        datadir: the data directory.
        server_version: goes into the common names (MySQL's ``MySQL_Server_<version>_Auto_Generated_...``).

    Returns:
        The names of the files written (empty when the datadir already had TLS material).
    """
    from cryptography.hazmat.primitives import serialization

    d = Path(datadir)
    names = (CA_CERT, CA_KEY, SERVER_CERT, SERVER_KEY, CLIENT_CERT, CLIENT_KEY)
    written: list[str] = []
    if not any((d / n).exists() for n in names):
        prefix = f"MySQL_Server_{server_version}_Auto_Generated_"
        ca_key = _key()
        ca = _cert(prefix + "CA_Certificate", ca_key, prefix + "CA_Certificate", ca_key, ca=True)
        pem = serialization.Encoding.PEM
        _write(d / CA_KEY, _pem_key(ca_key), True)
        _write(d / CA_CERT, ca.public_bytes(pem), False)
        for cert_name, key_name, cn in (
            (SERVER_CERT, SERVER_KEY, "Server_Certificate"),
            (CLIENT_CERT, CLIENT_KEY, "Client_Certificate"),
        ):
            key = _key()
            cert = _cert(prefix + cn, key, prefix + "CA_Certificate", ca_key, ca=False)
            _write(d / key_name, _pem_key(key), True)
            _write(d / cert_name, cert.public_bytes(pem), False)
        written.extend(names)
    if not (d / RSA_PRIVATE).exists() and not (d / RSA_PUBLIC).exists():
        key = _key()
        _write(d / RSA_PRIVATE, _pem_key(key), True)
        public = key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        _write(d / RSA_PUBLIC, public, False)
        written.extend((RSA_PRIVATE, RSA_PUBLIC))
    return written


def server_context(
    datadir: str | Path, cert: str | None = None, key: str | None = None, ca: str | None = None
) -> ssl.SSLContext | None:
    """The server-side TLS context: the datadir's ``server-cert.pem`` / ``server-key.pem`` (None if absent), or the
    files of mysqld's ``--ssl-cert`` / ``--ssl-key`` (paths relative to the datadir), with ``--ssl-ca``'s
    certificates to check the client certificates that clients offer (MySQL's ``ssl_ca``: a certificate is
    requested, not required).

    Raises:
        OSError: a named file cannot be read; ssl.SSLError: it holds no usable certificate or key.
    """
    d = Path(datadir)
    cert_path = d / (cert or SERVER_CERT)
    key_path = d / (key or SERVER_KEY)
    if cert is None and key is None and (not cert_path.exists() or not key_path.exists()):
        return None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert_path, key_path)
    if ca is not None:
        ctx.load_verify_locations(d / ca)
        ctx.verify_mode = ssl.CERT_OPTIONAL
    return ctx


def rsa_keys(datadir: str | Path) -> tuple[bytes, bytes] | None:
    """``(private PEM, public PEM)`` for caching_sha2_password's key exchange, or None when absent."""
    d = Path(datadir)
    if not (d / RSA_PRIVATE).exists() or not (d / RSA_PUBLIC).exists():
        return None
    return (d / RSA_PRIVATE).read_bytes(), (d / RSA_PUBLIC).read_bytes()
