"""MySQL wire protocol and session tracking (WL#6972). Not yet built: see the issue tracker."""
