"""gtidkit: MySQL's GTID subsystem rebuilt in Python.

Layers (lower never import higher): ``gtid`` <- ``binlog`` <- ``engine`` <- ``protocol`` <- ``replication`` <- ``cli``;
``pipeline`` (PySpark) rests on ``gtid`` and ``binlog`` only. See ``../shared/STYLE.md``.
"""

__version__ = "0.1.0"
