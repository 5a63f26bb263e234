"""`gtidkit gtid ...`: a GTID-set calculator for DBAs (GTID_SUBSET / GTID_SUBTRACT in a shell).

Every SET argument is GTID-set text in any form MySQL accepts; ``-`` reads it from standard input (so
``mysql -NBe 'SELECT @@gtid_executed' | gtidkit gtid count -`` works). Results are printed the way MySQL
prints them; bad input prints MySQL's error line (``ERROR 1772 (HY000): Malformed GTID set specification
'x'.``) to stderr and exits with status 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import reduce

import click

from gtidkit.cli.interrupt import set_incomplete
from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet
from gtidkit.gtid.encoding import malformed_encoding


class EmptyInputError(click.ClickException):
    """``-`` was given but standard input held no bytes at all: the producer of a pipe failed or wrote nothing.

    An empty GTID set arrives as an empty *line* (``mysql -NBe 'SELECT @@gtid_executed'`` and ``gtidkit gtid
    union ''`` both print one), so zero bytes is not read as an empty set: ``gtidkit gtid union A B | gtidkit gtid
    count -`` must not print 0 when the first command failed.
    """

    exit_code = 1

    def __init__(self) -> None:
        super().__init__(
            "standard input is empty: no GTID set was read (did the command feeding the pipe fail?). "
            "Give an empty set as an empty line or as ''."
        )

    def show(self, file: object = None) -> None:
        """Print ``gtidkit gtid: <message>`` on stderr."""
        click.echo(f"gtidkit gtid: {self.message}", err=True)


def _read(text: str) -> str:
    if text != "-":
        return text
    set_incomplete("no GTID set was read from standard input; nothing was printed")
    data = sys.stdin.read()
    if not data:
        raise EmptyInputError()
    return data


def _parse(text: str) -> GtidSet:
    return GtidSet.parse(_read(text))


def _fail(err: MySQLError, status: int = 1) -> None:
    click.echo(str(err), err=True)
    sys.exit(status)


def _separator_options(fn: Callable) -> Callable:
    """Add ``--separator TEXT`` (default ``,``; ``\\n`` is read as a newline) and ``--newline`` (MySQL's ``,\\n``)."""
    fn = click.option(
        "--newline",
        "-n",
        is_flag=True,
        help="Separate UUIDs with ',\\n' as MySQL's @@gtid_executed does (same as --separator ',\\n').",
    )(fn)
    fn = click.option(
        "--separator",
        "-s",
        default=",",
        show_default=True,
        help="Text between UUID groups; a literal \\n is read as a newline.",
    )(fn)
    return fn


def _emit(s: GtidSet, separator: str, newline: bool) -> None:
    sep = ",\n" if newline else separator.replace("\\n", "\n")
    click.echo(s.to_text(sep))


@click.group("gtid")
def gtid() -> None:
    """GTID-set calculator: normalize, union, subtract, intersect, subset, count, encode, decode.

    SET arguments are MySQL GTID-set text ('uuid:1-5:7,uuid2:tag:3'); '-' reads standard input.
    """


@gtid.command("normalize")
@click.argument("gtid_set")
@click.option("--commented", is_flag=True, help="mysqlbinlog's '# ' form ('# [empty]' for an empty set).")
@_separator_options
def normalize(gtid_set: str, commented: bool, separator: str, newline: bool) -> None:
    """Print SET in MySQL's normalised form: sorted, merged, lowercase."""
    try:
        s = _parse(gtid_set)
    except MySQLError as err:
        _fail(err)
        return
    if commented:
        click.echo(s.to_text(commented=True))
    else:
        _emit(s, separator, newline)


@gtid.command("union")
@click.argument("gtid_sets", nargs=-1, required=True)
@_separator_options
def union(gtid_sets: tuple[str, ...], separator: str, newline: bool) -> None:
    """Print the union of one or more SETs."""
    try:
        result = reduce(GtidSet.union, [_parse(t) for t in gtid_sets])
    except MySQLError as err:
        _fail(err)
        return
    _emit(result, separator, newline)


@gtid.command("intersect")
@click.argument("gtid_sets", nargs=-1, required=True)
@_separator_options
def intersect(gtid_sets: tuple[str, ...], separator: str, newline: bool) -> None:
    """Print the GTIDs present in every one of the SETs."""
    try:
        result = reduce(GtidSet.intersection, [_parse(t) for t in gtid_sets])
    except MySQLError as err:
        _fail(err)
        return
    _emit(result, separator, newline)


@gtid.command("subtract")
@click.argument("set_a")
@click.argument("set_b")
@_separator_options
def subtract(set_a: str, set_b: str, separator: str, newline: bool) -> None:
    """Print SET_A minus SET_B (like GTID_SUBTRACT(SET_A, SET_B))."""
    try:
        result = _parse(set_a) - _parse(set_b)
    except MySQLError as err:
        _fail(err)
        return
    _emit(result, separator, newline)


#: ``gtid subset --exit-status``: the answer as the exit status, grep -q style (2 = the answer is unknown).
SUBSET_YES, SUBSET_NO, SUBSET_ERROR = 0, 1, 2


@gtid.command("subset")
@click.argument("set_a")
@click.argument("set_b")
@click.option(
    "--exit-status",
    "-q",
    "exit_status",
    is_flag=True,
    help="Print nothing; exit 0 if SET_A is contained in SET_B, 1 if not, 2 on bad input (for shell 'if').",
)
def subset(set_a: str, set_b: str, exit_status: bool) -> None:
    """Print 1 if SET_A is contained in SET_B, else 0 (like GTID_SUBSET(SET_A, SET_B)).

    With --exit-status the answer is the exit status instead: ``if gtidkit gtid subset -q "$A" "$B"; then ...``.
    """
    try:
        result = _parse(set_a) <= _parse(set_b)
    except MySQLError as err:
        _fail(err, SUBSET_ERROR if exit_status else 1)
        return
    except EmptyInputError as err:
        if exit_status:
            err.exit_code = SUBSET_ERROR
        raise
    if exit_status:
        sys.exit(SUBSET_YES if result else SUBSET_NO)
    click.echo("1" if result else "0")


@gtid.command("count")
@click.argument("gtid_set")
def count(gtid_set: str) -> None:
    """Print the number of GTIDs in SET."""
    try:
        s = _parse(gtid_set)
    except MySQLError as err:
        _fail(err)
        return
    click.echo(str(s.count()))


@gtid.command("encode")
@click.argument("gtid_set")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "classic", "tagged"]),
    default="auto",
    show_default=True,
    help="auto: tagged (MySQL 8.3+) iff the set has tags.",
)
def encode(gtid_set: str, fmt: str) -> None:
    """Print the binary SID-block encoding of SET (Previous_gtids body) as hex."""
    try:
        s = _parse(gtid_set)
    except MySQLError as err:
        _fail(err)
        return
    tagged = {"auto": None, "classic": False, "tagged": True}[fmt]
    try:
        data = s.encode(tagged=tagged)
    except ValueError as err:
        raise click.UsageError(str(err)) from err
    click.echo(data.hex())


@gtid.command("decode")
@click.argument("hex_data")
@_separator_options
def decode(hex_data: str, separator: str, newline: bool) -> None:
    """Decode HEX_DATA (a binary-encoded GTID set, e.g. from a Previous_gtids event) and print it as text."""
    raw = _read(hex_data)
    try:
        data = bytes.fromhex("".join(raw.split()))
    except ValueError:
        _fail(malformed_encoding(None, None))
        return
    try:
        s = GtidSet.decode(data)
    except MySQLError as err:
        _fail(err)
        return
    _emit(s, separator, newline)
