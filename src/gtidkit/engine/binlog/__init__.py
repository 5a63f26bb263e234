"""The server's binary log: files and index, transaction events, dependency tracking, positioned scans."""
