"""Command-line shell (click + rich). Imports anything; imported by nothing."""
