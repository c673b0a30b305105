"""Checks of an installation: health of every dependency, the graph verified against the folder."""
