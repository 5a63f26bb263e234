"""One TLS client context per test process for the Python drivers' default ("preferred") TLS mode.

PyMySQL (1.2+) and mysql-connector-python's pure-Python protocol connect in TLS *preferred* mode when the caller
gives no TLS options: they upgrade the connection when the server offers TLS (every `gtidkit server` does, as
mysqld does with its auto-generated certificate), and each builds a new ``ssl.SSLContext`` for *every* connection
that reads the system's CA bundle (PyMySQL once, ~40 ms of CPU per connection on the suite's machine;
mysql-connector twice, ~80 ms: more than the rest of the client's connect and the server's side together) and then
verifies nothing with it (``CERT_NONE``, no host-name check: preferred mode has no CA to check against). The suite
opens thousands of connections; an application keeps one context (a connection pool) for the same effect.

:func:`share_preferred_contexts` makes each driver's connections without CA, certificate or key options in this
process reuse one context built by the driver's own code, once per set of options. Nothing the server sees changes:
each connection still negotiates TLS (the same ClientHello, certificate, cipher and encrypted packets) and the
session's ``Ssl_cipher`` is set as before. Connections that pass a CA, a certificate or a key build their context
as the driver does. tests/protocol/test_client_tls.py checks that a shared context is configured as the driver's
own and that the connections still run over TLS.
"""

from __future__ import annotations

import contextlib
from typing import Any

#: marks the wrappers installed by :func:`share_preferred_contexts` (installed once per process)
_MARK = "_gtidkit_shared_preferred_context"


def share_preferred_contexts() -> None:
    """Make PyMySQL's and mysql-connector-python's connections of this process that name no CA, certificate or key
    reuse one ``ssl.SSLContext`` per set of remaining TLS options, made by the driver's own function the first
    time it is needed (PyMySQL: ``Connection._create_ssl_ctx``; mysql-connector: ``MySQLSocket.build_ssl_context``).

    Idempotent. A driver that is not installed, or whose function has another name (another major version), is
    left as it is: its connections then cost what the driver makes them cost, and
    tests/protocol/test_client_tls.py fails to say so.
    """
    with contextlib.suppress(ImportError):
        import pymysql.connections

        _share(pymysql.connections.Connection, "_create_ssl_ctx", _pymysql_key)
    with contextlib.suppress(ImportError):
        import mysql.connector.network

        _share(mysql.connector.network.MySQLSocket, "build_ssl_context", _connector_key)


def _pymysql_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """PyMySQL's ``_create_ssl_ctx(sslp)``: only the preferred mode's empty options are shared (a dict naming a CA,
    certificate or verification, or an ``SSLContext`` of the caller's, is the caller's)."""
    sslp = args[0] if args else kwargs.get("sslp")
    return "preferred" if isinstance(sslp, dict) and not sslp else None


def _connector_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """mysql-connector's ``build_ssl_context(ssl_ca, ssl_cert, ssl_key, ssl_verify_cert, ssl_verify_identity,
    tls_versions, tls_cipher_suites)`` (always called with keywords): shared when no file is named."""
    if args or any(kwargs.get(name) for name in ("ssl_ca", "ssl_cert", "ssl_key")):
        return None
    return (
        bool(kwargs.get("ssl_verify_cert")),
        bool(kwargs.get("ssl_verify_identity")),
        tuple(kwargs.get("tls_versions") or ()),
        tuple(kwargs.get("tls_cipher_suites") or ()),
    )


def _share(cls: type, name: str, key_of: Any) -> None:
    """Wrap ``cls.name`` so that calls with the same ``key_of(args, kwargs)`` (not None) return the first call's
    context."""
    original = getattr(cls, name, None)
    if original is None or getattr(original, _MARK, False):
        return
    contexts: dict[Any, Any] = {}

    def shared(self: Any, *args: Any, **kwargs: Any) -> Any:
        key = key_of(args, kwargs)
        if key is None:
            return original(self, *args, **kwargs)
        ctx = contexts.get(key)
        if ctx is None:
            ctx = contexts[key] = original(self, *args, **kwargs)
        return ctx

    setattr(shared, _MARK, True)
    shared.__wrapped__ = original  # type: ignore[attr-defined]
    shared.__doc__ = original.__doc__
    setattr(cls, name, shared)
