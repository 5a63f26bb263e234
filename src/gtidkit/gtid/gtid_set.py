"""GtidSet: MySQL's ``Gtid_set`` as an immutable value: text parse/format, algebra, binary form.

Representation: one dict ``{(sid bytes, tag): (s0, e0, s1, e1, ...)}`` whose values are *normalised* flat
tuples of **closed** GNO intervals (sorted, no overlap, no adjacency; never empty). Every operation merges
sorted interval lists (see :mod:`gtidkit.gtid.interval`); no GNO is ever expanded. Sorted key order, the
hash and the single-line text are cached.

Sources: MySQL ``sql/rpl_gtid_set.cc`` (8.4: ``add_gtid_text``, ``to_string``, ``String_format``s,
``is_subset``, ``add_gtid_set``, ``remove_gtid_set``), ``libs/mysql/gtid/tsid.cpp`` (``Tsid::from_cstring``),
``tag.cpp``; manual "GTID Format and Storage" and "Functions Used with GTIDs"; formats.md §4.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from json import loads as _json_loads
from typing import Any
from uuid import UUID

from gtidkit.errors import GtidParseError
from gtidkit.gtid import encoding as _enc
from gtidkit.gtid import interval as _iv
from gtidkit.gtid.gtid import Gtid, parse_gno_at
from gtidkit.gtid.interval import MAX_GNO
from gtidkit.gtid.sid import (
    WHITESPACE,
    format_sid,
    is_valid_tag,
    normalize_tag,
    parse_sid_at,
    scan_tag,
    sid_bytes,
)
from gtidkit.mysql_errors import message, mysql_error

__all__ = ["ER_GNO_EXHAUSTED_MESSAGE", "GtidSet", "parse_tsids"]

Key = tuple[bytes, str]
Flat = tuple[int, ...]

#: ER_GNO_EXHAUSTED 1775, MySQL 8.x wording (share/messages_to_clients.txt; 5.6/5.7 said "Impossible to generate
#: Global Transaction Identifier: the integer component reached the maximal value.").
ER_GNO_EXHAUSTED_MESSAGE = message(1775)

# ---------------------------------------------------------------------------------------------------------
# Text parsing.
#
# Theory of operation: MySQL's grammar (add_gtid_text) is permissive -- whitespace around every token,
# strtoll(base 0) numbers (0x1F, 017), empty list elements, bare UUIDs, tags that switch the current TSID,
# and "n-m" with m < n silently dropped. A faithful character-level port (_parse_slow) handles all of it and
# reports the failing position. Almost every real input is in canonical form, so two fast paths go first:
#   1. _parse_plain: untagged canonical text, with C-speed string operations and one JSON array read;
#   2. _parse_fast: canonical text with tags, checked by one regex, cut with str.split and int();
#   3. _parse_slow: everything else, and every error (with its position).
# A fast path returns None for anything it is not sure about; it never raises. It does not range-check
# GNOs either: _finish does (raising _GnoOutOfRange so that _parse_slow reports the error). All paths give
# the same result; tests check this on every vector, on tables, and on fuzzed edits of valid text.
# ---------------------------------------------------------------------------------------------------------

_UUID_P = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_GNO_P = r"[1-9][0-9]{0,18}"  # decimal, no leading 0 (a leading 0 means octal to strtoll)
_TAG_P = r"[A-Za-z_][A-Za-z0-9_]{0,31}"
_ELEM_P = rf"{_UUID_P}(?::(?:{_GNO_P}(?:-{_GNO_P})?|{_TAG_P}))*"
_FAST_RE = re.compile(rf"(?:{_ELEM_P})(?:,[ \n]?{_ELEM_P})*")
_HAS_TAG_RE = re.compile(r":[A-Za-z_]")


def _malformed_set(text: str, shown_from: int, position: int | None) -> GtidParseError:
    """ER_MALFORMED_GTID_SET_SPECIFICATION (1772). MySQL quotes the text after its leading whitespace."""
    shown = text[shown_from:].split("\0", 1)[0]
    shown = shown.encode("utf-8", "surrogatepass")[:200].decode("utf-8", "ignore")
    return GtidParseError(1772, f"Malformed GTID set specification '{shown}'.", text, position)


def _parse_slow(text: str) -> dict[Key, list[int]]:
    """Character-level port of MySQL 8.4 ``Gtid_set::add_gtid_text``.

    Returns ``{tsid: flat closed intervals (unnormalised)}`` in the order TSIDs were registered, including
    TSIDs named without intervals. Raises GtidParseError 1772 with the failing character position.
    """
    s = text.split("\0", 1)[0]  # MySQL reads a C string
    n = len(s)
    ws = WHITESPACE
    p = 0
    while p < n and s[p] in ws:
        p += 1
    shown_from = p
    acc: dict[Key, list[int]] = {}
    while True:
        # Skip commas (empty elements are allowed).
        while p < n and s[p] == ",":
            p += 1
            while p < n and s[p] in ws:
                p += 1
        if p >= n:
            return acc
        # Tsid::from_cstring: uuid, [ws], then end / ',' / ':' [ws] [tag]
        raw = parse_sid_at(s, p)
        if raw is None:
            raise _malformed_set(text, shown_from, p)
        q = p + 36
        while q < n and s[q] in ws:
            q += 1
        tag = ""
        if q < n and s[q] != ",":
            if s[q] != ":":
                raise _malformed_set(text, shown_from, q)
            r = q + 1
            while r < n and s[r] in ws:
                r += 1
            used, t = scan_tag(s, r)
            if t:
                tag = t
                q = r + used
        p = q
        cur = acc.setdefault((raw, tag), [])
        while p < n and s[p] in ws:
            p += 1
        while p < n and s[p] == ":":
            p += 1
            used, t = scan_tag(s, p)
            p += used
            while p < n and s[p] in ws:
                p += 1
            if used > 0:
                # A tag (possibly empty: ": :" switches back to the untagged TSID) selects the TSID.
                cur = acc.setdefault((raw, t), [])
                continue
            start, end_pos = parse_gno_at(s, p)
            if start <= 0:
                raise _malformed_set(text, shown_from, p)
            p = end_pos
            while p < n and s[p] in ws:
                p += 1
            if p < n and s[p] == "-":
                p += 1
                end, end_pos = parse_gno_at(s, p)
                if end < 0:
                    raise _malformed_set(text, shown_from, p)
                p = end_pos
                while p < n and s[p] in ws:
                    p += 1
                # "1-" converts nothing: end 0, an empty interval (MySQL ignores it, as any m < n).
            else:
                end = start
            if end >= start:
                cur.append(start)
                cur.append(end)
        if p < n and s[p] != ",":
            raise _malformed_set(text, shown_from, p)


_PLAIN_RE = re.compile(r"[0-9a-fA-F:,\-]*")
_DROP_DIGITS = str.maketrans("", "", "0123456789abcdefABCDEF")


def _parse_plain(text: str) -> dict[Key, Flat] | None:
    """Parse untagged canonical text with (mostly) C-speed string operations; None if it is not that form.

    Canonical: ``uuid:N[-M][:...]`` elements separated by ``,`` / ``,\n`` / ``, ``, decimal GNOs without
    leading zeros (a leading 0 means octal to strtoll). Anything else -- tags, other whitespace, bare UUIDs,
    hex/octal, bad syntax -- returns None and goes to the next parser.

    How: single GNOs are written as ``n-n``, then the GNO parts of all elements become one flat JSON array
    read by the C JSON decoder (much faster than ``int()`` per item), and cut back per element by count.
    """
    t = text
    if "\n" in t:
        t = t.replace(",\n", ",")
    if " " in t:
        t = t.replace(", ", ",")
    if _PLAIN_RE.fullmatch(t) is None:
        return None
    uuids: list[str] = []
    rests: list[str] = []
    counts: list[int] = []
    for elem in t.split(","):
        if (
            len(elem) < 38
            or elem[36] != ":"
            or elem[8] != "-"
            or elem[13] != "-"
            or elem[18] != "-"
            or elem[23] != "-"
        ):
            return None
        rest = elem[37:]
        n_items = rest.count(":") + 1
        if rest.count("-") != n_items:
            rest = ":".join([it if "-" in it else f"{it}-{it}" for it in rest.split(":")])
        uuids.append(elem[:36])
        rests.append(rest)
        counts.append(2 * n_items)
    big = ";".join(rests)
    # Every item must now be exactly "N-M": with the digits dropped, the separators read "-:-;-:...-".
    seps = big.translate(_DROP_DIGITS)
    if seps[0::2] != "-" * ((len(seps) + 1) // 2) or "-" in seps[1::2] or len(seps) % 2 == 0:
        return None  # an item like 1-2-3 (or 1-2-3 hidden next to a single GNO)
    # Only hex letters can be left in GNO slots (the charset check ran); JSON rejects them all except an
    # exponent (1e5), so look for that, and for a leading 0 (GNO 0, or octal to strtoll).
    if "e" in big or "E" in big or big[:1] == "0" or ":0" in big or "-0" in big or ";0" in big:
        return None
    try:
        nums = tuple(_json_loads("[" + big.replace("-", ",").replace(":", ",").replace(";", ",") + "]"))
        sids = [bytes.fromhex(u.replace("-", "")) for u in uuids]
    except ValueError:
        return None  # an empty item ("1::2", "1-:"), a non-hex UUID, ...
    acc: dict[Key, Flat] = {}
    pos = 0
    for raw, c in zip(sids, counts):
        if len(raw) != 16:
            return None  # a UUID with a stray dash
        flat = nums[pos : pos + c]
        pos += c
        key = (raw, "")
        cur = acc.get(key)
        acc[key] = flat if cur is None else cur + flat
    return acc


def _parse_fast(text: str) -> dict[Key, list[int]] | None:
    """Parse canonical text, tags allowed (regex-checked), with str.split; None when it needs the careful parser."""
    if _FAST_RE.fullmatch(text) is None:
        return None
    acc: dict[Key, list[int]] = {}
    tagged = _HAS_TAG_RE.search(text) is not None
    fromhex = bytes.fromhex
    for elem in text.split(","):
        if elem[0] != elem[0].strip():
            elem = elem.lstrip(" \n")
        raw = fromhex(elem[:36].replace("-", ""))
        key = (raw, "")
        cur = acc.get(key)
        if cur is None:
            cur = acc[key] = []
        if len(elem) == 36:
            continue
        items = elem[37:].split(":")
        if not tagged:
            if "-" not in elem[37:]:
                nums = list(map(int, items))
                cur += [g for g in nums for _ in (0, 1)]
                continue
            for it in items:
                i = it.find("-")
                if i < 0:
                    g = int(it)
                    cur.append(g)
                    cur.append(g)
                else:
                    cur.append(int(it[:i]))
                    cur.append(int(it[i + 1 :]))
            continue
        for it in items:
            c = it[0]
            if c.isdigit():
                i = it.find("-")
                if i < 0:
                    g = int(it)
                    cur.append(g)
                    cur.append(g)
                else:
                    cur.append(int(it[:i]))
                    cur.append(int(it[i + 1 :]))
            else:
                key = (raw, it.lower())
                cur = acc.get(key)
                if cur is None:
                    cur = acc[key] = []
    return acc


class _GnoOutOfRange(Exception):
    """Internal: a fast path read a GNO above MAX_GNO; the careful parser must report it."""


def _finish(acc: dict[Key, list[int]] | dict[Key, Flat]) -> dict[Key, Flat]:
    """Normalise parsed interval lists; drop empty TSIDs and ``n-m`` pairs with ``m < n``.

    Raises _GnoOutOfRange if any number exceeds MAX_GNO (the fast paths do not range-check as they read).
    """
    out: dict[Key, Flat] = {}
    for key, lst in acc.items():
        if not lst:
            continue
        flat = lst if type(lst) is tuple else tuple(lst)
        if _iv.is_normal(flat):
            if flat[-1] > MAX_GNO:  # sorted: the last item is the largest
                raise _GnoOutOfRange
        else:
            if max(flat) > MAX_GNO:
                raise _GnoOutOfRange
            flat = _iv.normalize_pairs([(s, e) for s, e in zip(flat[0::2], flat[1::2]) if s <= e])
            if not flat:
                continue
        out[key] = flat
    return out


def _parse_acc(text: str) -> dict[Key, list[int]] | dict[Key, Flat]:
    if not isinstance(text, str):
        raise TypeError(f"GTID set text must be str, not {type(text).__name__}")
    if not text:
        return {}
    plain = _parse_plain(text)
    if plain is not None:
        return plain
    acc = _parse_fast(text)
    if acc is None:
        acc = _parse_slow(text)
    return acc


def parse_tsids(text: str) -> list[tuple[UUID, str, list[tuple[int, int]]]]:
    """Parse GTID-set text and list every TSID it names, with its merged closed intervals.

    Unlike :meth:`GtidSet.parse`, TSIDs named without intervals (``uuid`` or ``uuid:tag`` alone, which MySQL
    accepts and registers in its Tsid_map) are kept, with an empty list. Order: MySQL's (uuid bytes, tag).

    Raises:
        GtidParseError: 1772, as :meth:`GtidSet.parse`.
    """
    acc = _parse_slow(text)
    fin = _finish(acc)
    return [(UUID(bytes=k[0]), k[1], list(_iv.pairs(fin.get(k, ())))) for k in sorted(acc)]


def _format_flat(flat: Flat) -> str:
    return ":".join([str(s) if s == e else f"{s}-{e}" for s, e in zip(flat[0::2], flat[1::2])])


class GtidSet:
    """A set of GTIDs, as MySQL's ``Gtid_set``: per TSID ``(sid, tag)``, a list of closed GNO intervals.

    Values behave as immutable: ``|``, ``-``, ``&``, ``^`` and :meth:`add` return new sets. The only mutators
    are named ``*_in_place`` (for hot paths); a set mutated in place must not be used as a dict key.

    Construction: ``GtidSet()`` (empty), :meth:`parse`, :meth:`from_intervals`, :meth:`from_gtids`,
    :meth:`decode`. Text output: ``str(s)`` (single line, ``,`` between UUIDs) and :meth:`to_text`.
    """

    __slots__ = ("_hash", "_keys", "_map", "_str")

    def __init__(self) -> None:
        self._map: dict[Key, Flat] = {}
        self._keys: list[Key] | None = None
        self._hash: int | None = None
        self._str: str | None = None

    @classmethod
    def _wrap(cls, mapping: dict[Key, Flat]) -> GtidSet:
        obj = cls.__new__(cls)
        obj._map = mapping
        obj._keys = None
        obj._hash = None
        obj._str = None
        return obj

    def _dirty(self) -> None:
        self._keys = None
        self._hash = None
        self._str = None

    def _sorted_keys(self) -> list[Key]:
        keys = self._keys
        if keys is None:
            keys = self._keys = sorted(self._map)
        return keys

    # -- construction -----------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> GtidSet:
        """Parse GTID-set text in every form MySQL accepts.

        Accepted (MySQL 8.4 ``add_gtid_text``): ``""``/whitespace/commas only (empty set); several UUIDs and
        repeated UUIDs (merged); ``,`` or ``,\\n`` separators and empty elements; whitespace around ``,`` ``:``
        ``-``; UUIDs in either case; single GNOs and ``n-m`` ranges (``m < n`` silently ignored, ``n-`` is
        empty); GNOs read like ``strtoll(…, 0)`` (``0x1F`` hex, ``017`` octal); a UUID or ``uuid:tag`` with no
        intervals; 8.3+ tags (``uuid:tag:1-5``, case-folded; a tag switches the TSID for what follows).
        A NUL character ends the text, as for MySQL's C string.

        Raises:
            GtidParseError: code 1772, message "Malformed GTID set specification '%.200s'." (the text after
                leading whitespace), with ``.text`` (the input) and ``.position`` (character offset of the
                fault). Rejected: bad UUIDs, GNO 0 or negative or ``>= 2**63-1``, garbage, a trailing ``:``.
        """
        try:
            mapping = _finish(_parse_acc(text))
        except _GnoOutOfRange:
            # Only the fast paths get here (the careful parser range-checks as it reads): let the careful
            # parser find the position and raise.
            _parse_slow(text)
            raise AssertionError(f"careful parser accepted an out-of-range GNO in {text!r}") from None
        return cls._wrap(mapping)

    @classmethod
    def from_intervals(cls, intervals: Iterable[tuple[UUID | str | bytes, str, int, int]]) -> GtidSet:
        """Build a set from ``(sid, tag, start, end)`` rows with **inclusive** ends (``mysql.gtid_executed``).

        ``sid`` may be a UUID, its text or its 16 bytes; ``tag`` is normalised (``""`` = untagged). Rows
        may overlap, touch or come in any order.

        Raises:
            ValueError: on a malformed sid or tag, or unless ``1 <= start <= end <= 2**63-2``.
        """
        acc: dict[Key, list[tuple[int, int]]] = {}
        for sid, tag, start, end in intervals:
            if not (isinstance(start, int) and isinstance(end, int) and 1 <= start <= end <= MAX_GNO):
                raise ValueError(
                    f"invalid GNO interval {start!r}-{end!r} (need 1 <= start <= end <= {MAX_GNO})"
                )
            key = (sid_bytes(sid), normalize_tag(tag) if tag else "")
            acc.setdefault(key, []).append((start, end))
        return cls._wrap({k: _iv.normalize_pairs(v) for k, v in acc.items()})

    @classmethod
    def from_gtids(cls, gtids: Iterable[Gtid]) -> GtidSet:
        """Build a set holding the given :class:`Gtid` values."""
        return cls.from_intervals((g.sid, g.tag, g.gno, g.gno) for g in gtids)

    # -- text -------------------------------------------------------------------------------------------

    def to_text(self, separator: str = ",\n", *, commented: bool = False) -> str:
        """Format as MySQL prints a ``Gtid_set``.

        Sorted by UUID bytes; per UUID the untagged intervals first, then each tag ascending
        (``uuid:1-5:tag_a:1-3``); merged intervals; ``s`` for a single GNO else ``s-e`` (inclusive).

        Args:
            separator: between UUIDs; ``",\\n"`` is MySQL's default format (``@@gtid_executed``,
                GTID_SUBTRACT(), SHOW ... STATUS), ``","`` the single-line form of ``str()``.
            commented: mysqlbinlog's form: each line prefixed ``# ``, separator ``",\\n# "``, an empty set
                printed as ``# [empty]``.
        """
        if commented:
            if not self._map:
                return "# [empty]"
            return "# " + self._render(",\n# ")
        return self._render(separator)

    def _render(self, separator: str) -> str:
        parts: list[str] = []
        m = self._map
        prev = None
        for key in self._sorted_keys():
            raw, tag = key
            body = _format_flat(m[key])
            if raw != prev:
                prefix = format_sid(raw)
                prev = raw
                parts.append(f"{prefix}:{tag}:{body}" if tag else f"{prefix}:{body}")
            else:
                parts[-1] += f":{tag}:{body}" if tag else f":{body}"
        return separator.join(parts)

    def __str__(self) -> str:
        s = self._str
        if s is None:
            s = self._str = self._render(",")
        return s

    def __repr__(self) -> str:
        return f"GtidSet.parse({str(self)!r})"

    # -- inspection -------------------------------------------------------------------------------------

    def intervals(self) -> Iterator[tuple[UUID, str, int, int]]:
        """Yield ``(sid, tag, start, end)`` with inclusive ends, in MySQL order (sid bytes, tag, start)."""
        m = self._map
        for key in self._sorted_keys():
            sid = UUID(bytes=key[0])
            tag = key[1]
            for s, e in _iv.pairs(m[key]):
                yield sid, tag, s, e

    def tsids(self) -> list[tuple[UUID, str]]:
        """The ``(sid, tag)`` pairs that hold GTIDs, sorted as MySQL sorts them."""
        return [(UUID(bytes=k[0]), k[1]) for k in self._sorted_keys()]

    def sids(self) -> list[UUID]:
        """The distinct server UUIDs, sorted by their bytes."""
        out: list[UUID] = []
        prev = None
        for raw, _tag in self._sorted_keys():
            if raw != prev:
                out.append(UUID(bytes=raw))
                prev = raw
        return out

    def count(self) -> int:
        """Number of GTIDs (``GTID_COUNT``-style; an unbounded int, unlike ``len()``)."""
        return sum(map(_iv.count, self._map.values()))

    def __len__(self) -> int:
        """Number of GTIDs. Raises OverflowError above ``sys.maxsize``; use :meth:`count` then."""
        return self.count()

    def __bool__(self) -> bool:
        return bool(self._map)

    def is_empty(self) -> bool:
        """True if the set holds no GTID."""
        return not self._map

    def __contains__(self, gtid: object) -> bool:
        """``gtid in s`` for a :class:`Gtid` (or its text)."""
        if isinstance(gtid, str):
            gtid = Gtid.parse(gtid)
        if not isinstance(gtid, Gtid):
            return False
        flat = self._map.get((gtid.sid.bytes, gtid.tag))
        return flat is not None and _iv.contains_gno(flat, gtid.gno)

    def last_gno(self, sid: UUID | str | bytes, tag: str = "") -> int:
        """Largest GNO of ``(sid, tag)`` in the set, or 0 if none (``Gtid_set::get_last_gno``)."""
        flat = self._map.get((sid_bytes(sid), normalize_tag(tag) if tag else ""))
        return flat[-1] if flat else 0

    def next_free_gno(self, sid: UUID | str | bytes, tag: str = "", start: int = 1) -> int:
        """Smallest GNO ``>= start`` of ``(sid, tag)`` not in the set: what ``GTID_NEXT=AUTOMATIC`` takes.

        Follows ``Gtid_state::get_automatic_gno`` (gaps are filled first).

        Raises:
            MySQLError: 1775 (ER_GNO_EXHAUSTED) when no GNO up to 2**63-2 is free.
            ValueError: if ``start`` is not a positive int.
        """
        if not isinstance(start, int) or start < 1:
            raise ValueError(f"start GNO must be >= 1, got {start!r}")
        flat = self._map.get((sid_bytes(sid), normalize_tag(tag) if tag else ""), ())
        gno = _iv.next_free(flat, start)
        if gno > MAX_GNO:
            raise mysql_error(1775)
        return gno

    # -- comparison -------------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self._map == other._map

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self._map != other._map

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(frozenset(self._map.items()))
        return h

    def issubset(self, other: GtidSet) -> bool:
        """True if every GTID of ``self`` is in ``other`` (``GTID_SUBSET(self, other)``)."""
        om = other._map
        if len(self._map) > len(om):
            return False
        is_subset = _iv.is_subset
        for key, flat in self._map.items():
            o = om.get(key)
            if o is None or not is_subset(flat, o):
                return False
        return True

    def issuperset(self, other: GtidSet) -> bool:
        """True if every GTID of ``other`` is in ``self``."""
        return other.issubset(self)

    def isdisjoint(self, other: GtidSet) -> bool:
        """True if no GTID is in both sets."""
        a, b = (self._map, other._map) if len(self._map) <= len(other._map) else (other._map, self._map)
        for key, flat in a.items():
            o = b.get(key)
            if o is not None and _iv.overlaps(flat, o):
                return False
        return True

    def __le__(self, other: GtidSet) -> bool:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self.issubset(other)

    def __ge__(self, other: GtidSet) -> bool:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return other.issubset(self)

    def __lt__(self, other: GtidSet) -> bool:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self._map != other._map and self.issubset(other)

    def __gt__(self, other: GtidSet) -> bool:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self._map != other._map and other.issubset(self)

    # -- algebra (new sets) -----------------------------------------------------------------------------

    def union(self, *others: GtidSet) -> GtidSet:
        """All GTIDs in ``self`` or any of ``others`` (``Gtid_set::add_gtid_set``)."""
        result = self._wrap(dict(self._map))
        for o in others:
            result.union_in_place(o)
        return result

    def subtract(self, other: GtidSet) -> GtidSet:
        """GTIDs of ``self`` not in ``other`` (``GTID_SUBTRACT(self, other)``)."""
        om = other._map
        sub = _iv.subtract
        out: dict[Key, Flat] = {}
        for key, flat in self._map.items():
            o = om.get(key)
            if o is None:
                out[key] = flat
            else:
                r = sub(flat, o)
                if r:
                    out[key] = r
        return self._wrap(out)

    difference = subtract

    def intersection(self, *others: GtidSet) -> GtidSet:
        """GTIDs present in ``self`` and in every one of ``others``."""
        result = self
        for o in others:
            a, b = (result._map, o._map) if len(result._map) <= len(o._map) else (o._map, result._map)
            out: dict[Key, Flat] = {}
            inter = _iv.intersection
            for key, flat in a.items():
                other_flat = b.get(key)
                if other_flat is not None:
                    r = inter(flat, other_flat)
                    if r:
                        out[key] = r
            result = self._wrap(out)
        return result if others else self._wrap(dict(self._map))

    def symmetric_difference(self, other: GtidSet) -> GtidSet:
        """GTIDs in exactly one of the two sets."""
        return self.subtract(other).union(other.subtract(self))

    def __or__(self, other: GtidSet) -> GtidSet:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self.union(other)

    def __sub__(self, other: GtidSet) -> GtidSet:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self.subtract(other)

    def __and__(self, other: GtidSet) -> GtidSet:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self.intersection(other)

    def __xor__(self, other: GtidSet) -> GtidSet:
        if not isinstance(other, GtidSet):
            return NotImplemented
        return self.symmetric_difference(other)

    def add(self, gtid: Gtid) -> GtidSet:
        """A new set with ``gtid`` added (merged with neighbouring intervals)."""
        result = self._wrap(dict(self._map))
        result.add_in_place(gtid.sid, gtid.tag, gtid.gno)
        return result

    def restrict(self, sid: UUID | str | bytes, tag: str | None = None) -> GtidSet:
        """Only the GTIDs of one UUID: all its tags when ``tag`` is None, else that one TSID."""
        raw = sid_bytes(sid)
        if tag is None:
            return self._wrap({k: v for k, v in self._map.items() if k[0] == raw})
        key = (raw, normalize_tag(tag) if tag else "")
        flat = self._map.get(key)
        return self._wrap({key: flat} if flat else {})

    def without(self, sid: UUID | str | bytes, tag: str | None = None) -> GtidSet:
        """Everything except one UUID (all its tags when ``tag`` is None) or one TSID."""
        raw = sid_bytes(sid)
        if tag is None:
            return self._wrap({k: v for k, v in self._map.items() if k[0] != raw})
        key = (raw, normalize_tag(tag) if tag else "")
        return self._wrap({k: v for k, v in self._map.items() if k != key})

    # -- in place (hot paths) ---------------------------------------------------------------------------

    def add_in_place(self, sid: UUID | bytes, tag: str, gno: int) -> None:
        """Add one GTID to this set, mutating it. ``tag`` must already be normal (``""`` or lowercase).

        Raises:
            ValueError: if ``gno`` is outside ``1 .. 2**63-2`` or ``tag`` is not a normal tag.
        """
        if not 1 <= gno <= MAX_GNO:
            raise ValueError(f"GNO {gno!r} out of range 1..{MAX_GNO}")
        if tag and not is_valid_tag(tag):
            raise ValueError(f"malformed GTID tag {tag!r} (lowercase, 1..32 chars [a-z_][a-z0-9_]*)")
        raw = sid.bytes if isinstance(sid, UUID) else sid_bytes(sid)
        key = (raw, tag)
        m = self._map
        flat = m.get(key)
        if flat is None:
            m[key] = (gno, gno)
            self._dirty()
            return
        last = flat[-1]
        if gno == last + 1:  # the common case: the next GNO of this source
            m[key] = flat[:-1] + (gno,)
        elif gno > last + 1:
            m[key] = flat + (gno, gno)
        else:
            new = _iv.add_gno(flat, gno)
            if new is flat:
                return
            m[key] = new
        self._hash = None
        self._str = None

    def union_in_place(self, other: GtidSet) -> None:
        """``self |= other``, mutating ``self``."""
        m = self._map
        u = _iv.union
        added = False
        for key, flat in other._map.items():
            mine = m.get(key)
            if mine is None:
                m[key] = flat
                added = True
            elif mine != flat:
                m[key] = u(mine, flat)
        if added:
            self._keys = None
        self._hash = None
        self._str = None

    def subtract_in_place(self, other: GtidSet) -> None:
        """``self -= other``, mutating ``self``."""
        m = self._map
        sub = _iv.subtract
        for key, flat in other._map.items():
            mine = m.get(key)
            if mine is not None:
                r = sub(mine, flat)
                if r:
                    m[key] = r
                else:
                    del m[key]
        self._dirty()

    # -- binary -----------------------------------------------------------------------------------------

    def encode(self, tagged: bool | None = None) -> bytes:
        """Encode as SID blocks (Previous_gtids body, COM_BINLOG_DUMP_GTID data); see :mod:`.encoding`.

        Args:
            tagged: True for the 8.3+ tagged format, False for the classic one, None (default) for tagged
                iff any TSID has a tag.

        Raises:
            ValueError: if ``tagged`` is False but the set holds tagged GTIDs.
        """
        m = self._map
        keys = self._sorted_keys()
        if tagged is None:
            tagged = any(k[1] for k in keys)
        return _enc.encode_sid_blocks(((k[0], k[1], m[k]) for k in keys), tagged)

    @classmethod
    def decode(cls, data: bytes | bytearray | memoryview) -> GtidSet:
        """Decode an encoded set that must span all of ``data`` (classic or tagged, auto-detected).

        Raises:
            GtidParseError: 1773 "Malformed GTID set encoding." with the byte offset in ``position``.
        """
        mapping, _order, _used = _enc.decode_sid_blocks(data, exact=True)
        return cls._wrap(mapping)

    @classmethod
    def decode_prefix(cls, data: bytes | bytearray | memoryview) -> tuple[GtidSet, int]:
        """Decode an encoded set at the start of ``data``; return it and the number of bytes it used.

        Raises:
            GtidParseError: 1773 when the encoding is malformed or truncated.
        """
        mapping, _order, used = _enc.decode_sid_blocks(data, exact=False)
        return cls._wrap(mapping), used

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (GtidSet.parse, (str(self),))
