"""SQL on SQLite with no GTID knowledge: parsing, executor, DML, DDL, ALTER, values, catalog, row images."""
