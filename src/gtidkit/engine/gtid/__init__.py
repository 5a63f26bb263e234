"""The GTID core of the engine (WL#6559): GTID state, the mysql.gtid_executed table, the compressor."""
