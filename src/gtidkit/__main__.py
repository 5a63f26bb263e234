"""``python -m gtidkit`` runs the CLI (Ctrl-C while it is still loading exits with 130, without a traceback)."""

import sys

try:
    from gtidkit.cli.main import main
except KeyboardInterrupt:
    sys.exit(130)

main()
