"""``python -m gtidkit`` runs the CLI. A Ctrl-C while it is still loading is held back and delivered when the command
starts: exit status 130 and a note, without a traceback (:mod:`gtidkit.cli.interrupt`)."""

import signal

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

from gtidkit.cli.main import main  # after SIGINT is held back

main()
