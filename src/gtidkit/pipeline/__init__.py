"""gtidkit.pipeline: the PySpark job over a fleet's binary logs (imports gtidkit.gtid and gtidkit.binlog only).

Modules: ``session`` (build_session), ``datasource`` (the ``binlog`` Spark data source), ``layout`` (hosts and
files of the input), ``scan`` (executor-side streaming decode), ``schemas`` (table DDL), ``transforms`` and
``checks`` (DataFrame steps), ``gtid_state`` (driver-side WL#6559 state, chains, topology, errant sets), ``job``
(run_pipeline), ``report``, ``progress``, ``app`` (spark-submit entry), ``demo`` (``make demo``), ``cluster``
(a throw-away standalone cluster). PySpark is imported by the submodules, not here. See docs/PIPELINE.md.
"""
