"""The ``knotwork`` command line: a thin layer over the core, like the API. One module per group
of commands, each registering on the one ``app`` (cli/app.py), in the order help lists them."""

from knotwork.cli.app import app

# isort: off
from knotwork.cli import service, vault, read, notes, evaluate, neo4j  # noqa: F401  (register commands)
# isort: on

__all__ = ["app"]
