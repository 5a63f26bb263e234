"""Source and replica roles (binlog dump, receiver, applier). Not yet built: see the issue tracker."""
