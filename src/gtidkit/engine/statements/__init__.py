"""Statement handlers of the engine: SET parsing and the administrative / GTID statements."""
