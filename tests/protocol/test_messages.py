"""Message codecs, checked against independent decoders/encoders (mysql-connector-python's pure protocol module,
PyMySQL's packet wrappers) and against the byte layouts MySQL documents (formats.md section 6)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pymysql.protocol
import pytest
from mysql.connector.protocol import MySQLProtocol

from gtidkit.errors import LocalProtocolError, RemoteProtocolError
from gtidkit.protocol import auth
from gtidkit.protocol.constants import SERVER_CAPABILITIES, Capability, ColumnFlag, FieldType, ServerStatus
from gtidkit.protocol.messages import (
    BinaryRow,
    ColumnDefinition,
    ComQuery,
    ComStmtExecute,
    Eof,
    Err,
    Handshake,
    HandshakeResponse,
    Ok,
    SSLRequest,
    TextRow,
    decode_command,
)
from gtidkit.protocol.packets import frame

CAPS = int(SERVER_CAPABILITIES)
SCRAMBLE = b"abcdefghijklmnopqrst"


def _wire(payload: bytes, seq: int = 0) -> bytes:
    return frame(payload, seq)[0]


def test_handshake_read_by_mysql_connector() -> None:
    hs = Handshake("8.0.36-gtidkit", 1234, SCRAMBLE, SERVER_CAPABILITIES | Capability.SSL, status_flags=2)
    parsed = MySQLProtocol.parse_handshake(_wire(hs.encode()))
    assert parsed["protocol"] == 10
    assert parsed["server_version_original"] == "8.0.36-gtidkit"
    assert parsed["server_threadid"] == 1234
    assert parsed["auth_data"] == SCRAMBLE
    assert parsed["auth_plugin"] == "caching_sha2_password"
    assert parsed["capabilities"] == int(SERVER_CAPABILITIES | Capability.SSL)
    assert Handshake.decode(hs.encode()) == hs


def test_handshake_response_built_by_mysql_connector() -> None:
    hs = Handshake("8.0.36", 7, SCRAMBLE, SERVER_CAPABILITIES)
    parsed_hs = MySQLProtocol.parse_handshake(_wire(hs.encode()))
    flags = int(
        Capability.PROTOCOL_41
        | Capability.SECURE_CONNECTION
        | Capability.PLUGIN_AUTH
        | Capability.CONNECT_WITH_DB
        | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
        | Capability.CONNECT_ATTRS
    )
    payload, _ = MySQLProtocol.make_auth(
        parsed_hs,
        "alice",
        "pw",
        database="db1",
        client_flags=flags,
        auth_plugin="mysql_native_password",
        conn_attrs={"_client_name": "x"},
    )
    resp = HandshakeResponse.decode(payload)
    assert isinstance(resp, HandshakeResponse)
    assert resp.username == "alice" and resp.database == "db1"
    assert resp.auth_plugin_name == "mysql_native_password"
    assert resp.auth_response == auth.native_token("pw", SCRAMBLE)
    assert ("_client_name", "x") in resp.attributes
    assert HandshakeResponse.decode(resp.encode()) == resp


def test_ssl_request_is_recognised() -> None:
    req = SSLRequest(Capability.PROTOCOL_41 | Capability.SSL | Capability.SECURE_CONNECTION)
    assert len(req.encode()) == 32
    assert HandshakeResponse.decode(req.encode()) == req


def test_pre_41_client_refused() -> None:
    with pytest.raises(RemoteProtocolError) as exc:
        HandshakeResponse.decode(bytes(32) + b"u\0")
    assert exc.value.code == 1251


def test_ok_read_by_mysql_connector() -> None:
    ok = Ok(
        affected_rows=3,
        last_insert_id=300,
        status_flags=ServerStatus.SERVER_STATUS_AUTOCOMMIT,
        warnings=1,
        info=b"Rows matched",
    )
    parsed = MySQLProtocol.parse_ok(_wire(ok.encode(CAPS)))
    assert parsed["affected_rows"] == 3 and parsed["insert_id"] == 300
    assert parsed["status_flag"] == 2 and parsed["warning_count"] == 1
    assert parsed["info_msg"] == "Rows matched"
    assert Ok.decode(ok.encode(CAPS), CAPS) == ok


def test_ok_with_session_state_exact_layout() -> None:
    # formats.md 6.3: OWN_GTID after committing 3e11fa47-...:1 -> 00 2a 03 28 00 26 <38 bytes> after the warnings
    gtid = b"3e11fa47-71ca-11e1-9e33-c80aa9429562:1"
    entry = bytes([0x03, 0x28, 0x00, 0x26]) + gtid
    ok = Ok(
        0, 0, ServerStatus.SERVER_STATUS_AUTOCOMMIT | ServerStatus.SERVER_SESSION_STATE_CHANGED, 0, b"", entry
    )
    assert (
        ok.encode(CAPS) == bytes([0, 0, 0]) + (0x4002).to_bytes(2, "little") + b"\0\0" + b"\x00\x2a" + entry
    )
    # PyMySQL keeps the raw bytes after the warnings in .message (tooling.md section 2)
    wrapped = pymysql.protocol.OKPacketWrapper(pymysql.protocol.MysqlPacket(ok.encode(CAPS), "utf8"))
    assert wrapped.server_status == 0x4002
    assert wrapped.message == b"\x00\x2a" + entry


def test_ok_without_session_track_drops_state_and_flag() -> None:
    caps = CAPS & ~Capability.SESSION_TRACK
    ok = Ok(
        0,
        0,
        ServerStatus.SERVER_STATUS_AUTOCOMMIT | ServerStatus.SERVER_SESSION_STATE_CHANGED,
        0,
        b"",
        b"\x01\x02\x01x",
    )
    assert ok.encode(caps) == bytes([0, 0, 0, 2, 0, 0, 0])


def test_ok_with_session_track_no_state_no_info_is_short() -> None:
    # the info string goes only when there is info or state: a bare OK stays 7 bytes
    assert Ok().encode(CAPS) == bytes([0, 0, 0, 2, 0, 0, 0])


def test_err_layout_and_connector() -> None:
    err = Err(1096, "No tables used", "HY000")
    # DEVDOC page_protocol_basic_err_packet example
    assert err.encode(CAPS).hex() == "ff4804234859303030" + b"No tables used".hex()
    exc = pytest.importorskip("mysql.connector.errors").get_exception(_wire(err.encode(CAPS)))
    assert exc.errno == 1096 and exc.sqlstate == "HY000"
    assert Err.decode(err.encode(CAPS), CAPS) == err


def test_err_needs_5_char_sqlstate() -> None:
    with pytest.raises(LocalProtocolError):
        Err(1, "x", "HY00")


def test_eof_layout() -> None:
    # DEVDOC page_protocol_basic_eof_packet example: fe 00 00 02 00
    assert Eof(0, 2).encode(CAPS).hex() == "fe00000200"
    assert Eof(0, 2).as_ok().encode(CAPS)[0] == 0xFE


def test_column_definition_read_by_mysql_connector() -> None:
    col = ColumnDefinition(
        name="id",
        type=FieldType.MYSQL_TYPE_LONG,
        schema="db",
        table="t",
        org_table="t",
        org_name="id",
        character_set=63,
        column_length=11,
        flags=ColumnFlag.NOT_NULL | ColumnFlag.PRI_KEY | ColumnFlag.NUM,
    )
    parsed = MySQLProtocol.parse_column(_wire(col.encode()))
    assert parsed[0] == "id" and parsed[1] == FieldType.MYSQL_TYPE_LONG
    assert parsed[7] == int(col.flags)
    assert ColumnDefinition.decode(col.encode()) == col


def test_text_row() -> None:
    row = TextRow((b"1", None, b"", b"x" * 300))
    assert row.encode()[:4] == b"\x011\xfb\x00"
    assert TextRow.decode(row.encode(), 4) == row


def test_binary_row_read_by_mysql_connector() -> None:
    types = (
        FieldType.MYSQL_TYPE_LONGLONG,
        FieldType.MYSQL_TYPE_VAR_STRING,
        FieldType.MYSQL_TYPE_DOUBLE,
        FieldType.MYSQL_TYPE_DATETIME,
        FieldType.MYSQL_TYPE_NEWDECIMAL,
        FieldType.MYSQL_TYPE_LONG,
        FieldType.MYSQL_TYPE_DATE,
        FieldType.MYSQL_TYPE_TIME,
    )
    values = (
        -5,
        "héllo",
        1.5,
        dt.datetime(2024, 2, 29, 13, 4, 5, 123456),
        Decimal("12.34"),
        None,
        dt.date(2020, 1, 2),
        dt.timedelta(days=1, hours=2, minutes=3, seconds=4, microseconds=5),
    )
    # (not a negative TIME: mysql-connector 26 negates only the days of one, a client bug)
    payload = BinaryRow(values, types).encode()
    fields = [
        ("c", t, None, None, None, None, 1, 0, 255 if t == FieldType.MYSQL_TYPE_VAR_STRING else 63)
        for t in types
    ]
    parsed = MySQLProtocol()._parse_binary_values(fields, payload[1:], "utf-8")
    assert parsed[0] == -5 and parsed[1] == "héllo" and parsed[2] == 1.5
    assert parsed[3] == values[3] and parsed[4] == Decimal("12.34") and parsed[5] is None
    assert parsed[6] == values[6] and parsed[7] == values[7]


def test_com_query_with_attributes() -> None:
    caps = CAPS | Capability.QUERY_ATTRIBUTES
    payload = ComQuery(b"SELECT 1").encode(caps)
    assert payload == b"\x03\x00\x01SELECT 1"  # parameter_count 0, parameter_set_count 1
    assert decode_command(payload, caps) == ComQuery(b"SELECT 1")
    assert decode_command(b"\x03SELECT 1", CAPS & ~Capability.QUERY_ATTRIBUTES) == ComQuery(b"SELECT 1")


def test_com_stmt_execute_params_from_mysql_connector() -> None:
    proto = MySQLProtocol()
    payload = proto.make_stmt_execute(5, data=(1, "abc", None, 2.5), parameters=(0, 0, 0, 0))
    cmd = decode_command(bytes([0x17]) + payload, CAPS & ~Capability.QUERY_ATTRIBUTES)
    assert isinstance(cmd, ComStmtExecute) and cmd.statement_id == 5
    values, types = cmd.parameters(4, CAPS & ~Capability.QUERY_ATTRIBUTES)
    assert [v.value for v in values] == [1, b"abc", None, 2.5]
    assert len(types) == 4


@pytest.mark.parametrize(
    "payload",
    [b"", b"\x16", b"\x17\x01", b"\x11user", b"\x04table-without-nul", b"\x19\x01\x02"],
    ids=[
        "empty",
        "prepare-empty-ok",
        "execute-truncated",
        "change-user-truncated",
        "field-list",
        "close-short",
    ],
)
def test_malformed_commands_raise_only_protocol_errors(payload: bytes) -> None:
    try:
        decode_command(payload, CAPS)
    except RemoteProtocolError:
        pass
