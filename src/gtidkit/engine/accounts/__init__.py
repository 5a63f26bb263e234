"""Accounts as server state: the grant tables, stored password forms, and the account statements (CREATE / ALTER
/ DROP / RENAME USER, GRANT, REVOKE, SET PASSWORD, CREATE / DROP ROLE) run as DDL: implicit commit, one GTID,
logged in MySQL's rewritten form, applied by replicas, restored by crash recovery."""
