"""MySQL's argument counts of its native functions (MySQL 8.0.41 ``sql/item_create.cc``, the ``func_array``
entries: ``SQL_FN(F, N)`` takes N arguments, ``SQL_FN_V(F, MIN, MAX)`` MIN to MAX, ``MAX_ARGLIST_SIZE`` any number;
the ``SQL_FACTORY`` entries from their instantiators). A call with another count is 1582
ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT. Functions of the grammar itself (``NOW``, ``SUBSTRING``, ``TRIM``, ``IF``
...) are not here: a wrong count of those is a syntax error (1064). JSON_SET / JSON_INSERT / JSON_REPLACE take an
odd count (``SQL_FN_ODD``). The internal data-dictionary helpers (``INTERNAL_*``, ``CAN_ACCESS_*``) are left out.

The rows of :mod:`gtidkit.engine.sql.function_table` for these names take their argument counts from here.
"""

from __future__ import annotations

__all__ = ["MANY", "NATIVE_ARITIES", "ODD_ARGUMENT_COUNTS"]

#: the upper argument count of a variadic function (MySQL's MAX_ARGLIST_SIZE stands for "any")
MANY = 1 << 16

#: MySQL name -> (fewest, most) arguments
NATIVE_ARITIES: dict[str, tuple[int, int]] = {
    "ABS": (1, 1), "ACOS": (1, 1), "ADDTIME": (2, 2), "AES_DECRYPT": (2, 6), "AES_ENCRYPT": (2, 6),
    "ANY_VALUE": (1, 1), "ASIN": (1, 1), "ATAN": (1, 2), "ATAN2": (1, 2), "BENCHMARK": (2, 2), "BIN": (1, 1),
    "BIN_TO_UUID": (1, 2), "BIT_COUNT": (1, 1), "BIT_LENGTH": (1, 1), "CEIL": (1, 1), "CEILING": (1, 1),
    "CHARACTER_LENGTH": (1, 1), "CHAR_LENGTH": (1, 1), "COERCIBILITY": (1, 1), "COMPRESS": (1, 1),
    "CONCAT": (1, MANY), "CONCAT_WS": (2, MANY), "CONNECTION_ID": (0, 0), "CONV": (3, 3), "CONVERT_TZ": (3, 3),
    "COS": (1, 1), "COT": (1, 1), "CRC32": (1, 1), "CURRENT_ROLE": (0, 0), "DATEDIFF": (2, 2), "DATE_FORMAT": (2, 2),
    "DAYNAME": (1, 1), "DAYOFMONTH": (1, 1), "DAYOFWEEK": (1, 1), "DAYOFYEAR": (1, 1), "DEGREES": (1, 1),
    "ELT": (2, MANY), "EXP": (1, 1), "EXPORT_SET": (3, 5), "EXTRACTVALUE": (2, 2), "FIELD": (2, MANY),
    "FIND_IN_SET": (2, 2), "FLOOR": (1, 1), "FORMAT_BYTES": (1, 1), "FORMAT_PICO_TIME": (1, 1), "FOUND_ROWS": (0, 0),
    "FROM_BASE64": (1, 1), "FROM_DAYS": (1, 1), "FROM_UNIXTIME": (1, 2), "GET_LOCK": (2, 2), "GREATEST": (2, MANY),
    "GTID_SUBSET": (2, 2), "GTID_SUBTRACT": (2, 2), "HEX": (1, 1), "ICU_VERSION": (0, 0), "IFNULL": (2, 2),
    "INET6_ATON": (1, 1), "INET6_NTOA": (1, 1), "INET_ATON": (1, 1), "INET_NTOA": (1, 1), "INSTR": (2, 2),
    "ISNULL": (1, 1), "IS_FREE_LOCK": (1, 1), "IS_IPV4": (1, 1), "IS_IPV4_COMPAT": (1, 1), "IS_IPV4_MAPPED": (1, 1),
    "IS_IPV6": (1, 1), "IS_USED_LOCK": (1, 1), "IS_UUID": (1, 1), "JSON_CONTAINS": (2, 3), "JSON_DEPTH": (1, 1),
    "JSON_EXTRACT": (2, MANY), "JSON_INSERT": (3, MANY), "JSON_KEYS": (1, 2), "JSON_LENGTH": (1, 2),
    "JSON_OVERLAPS": (2, 2), "JSON_PRETTY": (1, 1), "JSON_QUOTE": (1, 1), "JSON_REPLACE": (3, MANY),
    "JSON_SCHEMA_VALID": (2, 2), "JSON_SEARCH": (3, MANY), "JSON_SET": (3, MANY), "JSON_STORAGE_FREE": (1, 1),
    "JSON_STORAGE_SIZE": (1, 1), "JSON_TYPE": (1, 1), "JSON_UNQUOTE": (1, 1), "JSON_VALID": (1, 1),
    "LAST_DAY": (1, 1), "LAST_INSERT_ID": (0, 1), "LCASE": (1, 1), "LEAST": (2, MANY), "LENGTH": (1, 1),
    "LIKE_RANGE_MAX": (2, 2), "LIKE_RANGE_MIN": (2, 2), "LN": (1, 1), "LOAD_FILE": (1, 1), "LOCATE": (2, 3),
    "LOG": (1, 2), "LOG10": (1, 1), "LOG2": (1, 1), "LOWER": (1, 1), "LPAD": (3, 3), "LTRIM": (1, 1),
    "MAKEDATE": (2, 2), "MAKETIME": (3, 3), "MAKE_SET": (2, MANY), "MASTER_POS_WAIT": (2, 4), "MBRCONTAINS": (2, 2),
    "MBRCOVEREDBY": (2, 2), "MBRCOVERS": (2, 2), "MBRDISJOINT": (2, 2), "MBREQUALS": (2, 2), "MBRINTERSECTS": (2, 2),
    "MBROVERLAPS": (2, 2), "MBRTOUCHES": (2, 2), "MBRWITHIN": (2, 2), "MD5": (1, 1), "MONTHNAME": (1, 1),
    "NAME_CONST": (2, 2), "NULLIF": (2, 2), "OCT": (1, 1), "OCTET_LENGTH": (1, 1), "ORD": (1, 1),
    "PERIOD_ADD": (2, 2), "PERIOD_DIFF": (2, 2), "PI": (0, 0), "POW": (2, 2), "POWER": (2, 2),
    "PS_CURRENT_THREAD_ID": (0, 0), "PS_THREAD_ID": (1, 1), "QUOTE": (1, 1), "RADIANS": (1, 1), "RAND": (0, 1),
    "RANDOM_BYTES": (1, 1), "REGEXP_INSTR": (2, 6), "REGEXP_LIKE": (2, 3), "REGEXP_REPLACE": (3, 6),
    "REGEXP_SUBSTR": (2, 5), "RELEASE_ALL_LOCKS": (0, 0), "RELEASE_LOCK": (1, 1), "REVERSE": (1, 1),
    "ROLES_GRAPHML": (0, 0), "ROUND": (1, 2), "RPAD": (3, 3), "RTRIM": (1, 1), "SEC_TO_TIME": (1, 1), "SHA": (1, 1),
    "SHA1": (1, 1), "SHA2": (2, 2), "SIGN": (1, 1), "SIN": (1, 1), "SLEEP": (1, 1), "SOUNDEX": (1, 1),
    "SOURCE_POS_WAIT": (2, 4), "SPACE": (1, 1), "SQRT": (1, 1), "STATEMENT_DIGEST": (1, 1),
    "STATEMENT_DIGEST_TEXT": (1, 1), "STRCMP": (2, 2), "STR_TO_DATE": (2, 2), "ST_AREA": (1, 1),
    "ST_ASBINARY": (1, 2), "ST_ASGEOJSON": (1, 3), "ST_ASTEXT": (1, 2), "ST_ASWKB": (1, 2), "ST_ASWKT": (1, 2),
    "ST_BUFFER": (2, 5), "ST_BUFFER_STRATEGY": (1, 2), "ST_CENTROID": (1, 1), "ST_CONTAINS": (2, 2),
    "ST_CONVEXHULL": (1, 1), "ST_CROSSES": (2, 2), "ST_DIFFERENCE": (2, 2), "ST_DIMENSION": (1, 1),
    "ST_DISJOINT": (2, 2), "ST_DISTANCE": (2, 3), "ST_DISTANCE_SPHERE": (2, 3), "ST_ENDPOINT": (1, 1),
    "ST_ENVELOPE": (1, 1), "ST_EQUALS": (2, 2), "ST_EXTERIORRING": (1, 1), "ST_FRECHETDISTANCE": (2, 3),
    "ST_GEOHASH": (2, 3), "ST_GEOMCOLLFROMTEXT": (1, 3), "ST_GEOMCOLLFROMTXT": (1, 3), "ST_GEOMCOLLFROMWKB": (1, 3),
    "ST_GEOMETRYFROMTEXT": (1, 3), "ST_GEOMETRYFROMWKB": (1, 3), "ST_GEOMETRYN": (2, 2), "ST_GEOMETRYTYPE": (1, 1),
    "ST_GEOMFROMGEOJSON": (1, 3), "ST_GEOMFROMTEXT": (1, 3), "ST_GEOMFROMWKB": (1, 3), "ST_INTERIORRINGN": (2, 2),
    "ST_INTERSECTION": (2, 2), "ST_INTERSECTS": (2, 2), "ST_ISCLOSED": (1, 1), "ST_ISEMPTY": (1, 1),
    "ST_ISSIMPLE": (1, 1), "ST_ISVALID": (1, 1), "ST_LATFROMGEOHASH": (1, 1), "ST_LATITUDE": (1, 2),
    "ST_LENGTH": (1, 2), "ST_LINEFROMTEXT": (1, 3), "ST_LINEFROMWKB": (1, 3), "ST_LINEINTERPOLATEPOINT": (2, 2),
    "ST_LINEINTERPOLATEPOINTS": (2, 2), "ST_LINESTRINGFROMTEXT": (1, 3), "ST_LINESTRINGFROMWKB": (1, 3),
    "ST_LONGFROMGEOHASH": (1, 1), "ST_LONGITUDE": (1, 2), "ST_MAKEENVELOPE": (2, 2), "ST_MLINEFROMTEXT": (1, 3),
    "ST_MLINEFROMWKB": (1, 3), "ST_MPOINTFROMTEXT": (1, 3), "ST_MPOINTFROMWKB": (1, 3), "ST_MPOLYFROMTEXT": (1, 3),
    "ST_MPOLYFROMWKB": (1, 3), "ST_MULTIPOINTFROMTEXT": (1, 3), "ST_MULTIPOINTFROMWKB": (1, 3),
    "ST_MULTIPOLYGONFROMTEXT": (1, 3), "ST_MULTIPOLYGONFROMWKB": (1, 3), "ST_NUMGEOMETRIES": (1, 1),
    "ST_NUMINTERIORRING": (1, 1), "ST_NUMINTERIORRINGS": (1, 1), "ST_NUMPOINTS": (1, 1), "ST_OVERLAPS": (2, 2),
    "ST_POINTATDISTANCE": (2, 2), "ST_POINTFROMGEOHASH": (2, 2), "ST_POINTFROMTEXT": (1, 3),
    "ST_POINTFROMWKB": (1, 3), "ST_POINTN": (2, 2), "ST_POLYFROMTEXT": (1, 3), "ST_POLYFROMWKB": (1, 3),
    "ST_POLYGONFROMTEXT": (1, 3), "ST_POLYGONFROMWKB": (1, 3), "ST_SIMPLIFY": (2, 2), "ST_SRID": (1, 2),
    "ST_STARTPOINT": (1, 1), "ST_SWAPXY": (1, 1), "ST_SYMDIFFERENCE": (2, 2), "ST_TOUCHES": (2, 2),
    "ST_TRANSFORM": (2, 2), "ST_UNION": (2, 2), "ST_VALIDATE": (1, 1), "ST_WITHIN": (2, 2), "ST_X": (1, 2),
    "ST_Y": (1, 2), "SUBSTRING_INDEX": (3, 3), "SUBTIME": (2, 2), "TAN": (1, 1), "TIMEDIFF": (2, 2),
    "TIME_FORMAT": (2, 2), "TIME_TO_SEC": (1, 1), "TO_BASE64": (1, 1), "TO_DAYS": (1, 1), "TO_SECONDS": (1, 1),
    "UCASE": (1, 1), "UNCOMPRESS": (1, 1), "UNCOMPRESSED_LENGTH": (1, 1), "UNHEX": (1, 1), "UNIX_TIMESTAMP": (0, 1),
    "UPDATEXML": (3, 3), "UPPER": (1, 1), "UUID": (0, 0), "UUID_SHORT": (0, 0), "UUID_TO_BIN": (1, 2),
    "VERSION": (0, 0), "WEEKDAY": (1, 1), "WEEKOFYEAR": (1, 1), "YEARWEEK": (1, 2),
}  # fmt: skip

#: the functions whose argument count must also be odd (``Odd_argcount_function_factory``)
ODD_ARGUMENT_COUNTS = frozenset({"JSON_INSERT", "JSON_REPLACE", "JSON_SET"})
