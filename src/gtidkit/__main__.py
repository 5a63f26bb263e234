"""``python -m gtidkit`` runs the CLI."""

from gtidkit.cli.main import main

main()
