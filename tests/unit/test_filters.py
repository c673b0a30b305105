"""Note filters as the searches receive them, whoever built them: the REST and MCP inputs
validate a folder, the Python API (``Filters``) takes it as given."""

from __future__ import annotations

import unicodedata

import pytest

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


def test_a_folder_given_by_a_user_is_checked_as_a_note_path_is() -> None:
    from knotwork.retrieve.types import vault_folder

    assert vault_folder(None) is None and vault_folder(" ") is None and vault_folder("./") is None
    assert vault_folder("Q: questions") == "Q: questions/"  # a name, as clean_relpath takes it
    assert vault_folder("C:notes") == "C:notes/"
    assert vault_folder("People\\Team") == "People/Team/"
    for absolute in ("/etc", "C:", "C:/Users", "c:\\Users"):
        with pytest.raises(ValueError, match="is absolute"):
            vault_folder(absolute)
    with pytest.raises(ValueError, match="climbs out of the vault"):
        vault_folder("a/../../b")
    with pytest.raises(ValueError, match="control characters"):
        vault_folder("a\nb")


def test_a_folder_with_dots_that_stays_inside_is_named_as_it_means() -> None:
    """Refused all the same (a filter is given plainly), but not said to climb out."""
    from knotwork.retrieve.types import vault_folder

    with pytest.raises(ValueError, match=r"holds '\.\.'; give it without, as 'People'"):
        vault_folder("Projects/../People")
    with pytest.raises(ValueError, match="climbs out of the vault"):
        vault_folder("Projects/../../x")
