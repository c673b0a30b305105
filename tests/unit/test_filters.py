"""Note filters as the searches receive them, whoever built them: the REST and MCP inputs
validate a folder, the Python API (``Filters``) takes it as given."""

from __future__ import annotations

import unicodedata

from knotwork.retrieve import Filters


def test_a_folder_is_a_prefix_ending_in_a_slash_however_it_was_written() -> None:
    """Without the slash, "projects" would let "projects-archive/secret.md" and
    "projects.md" through."""
    assert Filters(folder="projects").params()["folder"] == "projects/"
    assert Filters(folder="./team\\people/").params()["folder"] == "team/people/"
    assert Filters(folder=" ").params()["folder"] is None
    assert Filters().params()["folder"] is None


def test_tags_are_matched_composed_as_they_are_stored() -> None:
    decomposed = unicodedata.normalize("NFD", "#Caf\u00e9")
    assert Filters(tags=(decomposed,)).params()["tags"] == ["caf\u00e9"]
