"""``python -m knotwork.cli``: the command line, as the ``knotwork`` script runs it."""

from knotwork.cli import app

app()
