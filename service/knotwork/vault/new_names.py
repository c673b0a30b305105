"""The names a REST or MCP write may give a new note (``new_name_problem``), beyond those any
note may have (``vault.files.note_path_problem``). Asked of new notes only: a note on disk
already is the user's, and is ingested and stays writable whatever its name; so is a folder
on disk, which only the rules of spaces and invisible characters check (as they did before
the other rules came).

- **Look-alikes** pass for another note, so retrieval names one for the other: spaces or
  blanks around a name, characters that show nothing (``vault.lookalike``), characters drawn
  as a slash or a dot (the fullwidth solidus U+FF0F between ``People`` and ``Alice.md``), and
  a name the same as one beside it once compatibility forms and case are folded (``ﬁle.md``
  beside ``file.md``: NFKC, case-folded).
- **Names Obsidian refuses**: ``# ^ [ ] |`` mean a heading, a block, a link's brackets and its
  shown text inside a link, so no link could reach the note; ``: * ? " < >``, a trailing dot
  or space and Windows' device names (``CON``, ``nul.md``) cannot be made on Windows, nor on
  the FAT and exFAT storage of Android, which a synced vault then fails to copy.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from knotwork.vault.files import fold
from knotwork.vault.lookalike import invisible_in, separator_lookalike, trimmed

# What each character starts inside an Obsidian link ``[[name#heading^block|shown]]``.
_IN_LINKS = {
    "#": "a heading",
    "^": "a block",
    "|": "the text the link shows",
    "[": "a link",
    "]": "the end of a link",
}
_NOT_ON_WINDOWS = ':*?"<>'
_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", *(f"{port}{n}" for port in ("COM", "LPT") for n in range(1, 10))}
)


def lookalike_name(rel: str) -> str | None:
    """Why a new note's path would pass for another's: a file or folder name whose stem (the
    name without ``.md``) begins or ends with a space or a blank, or that holds a character
    that shows nothing. Such a note takes over the name of the one it looks like (retrieval
    names it for the question's "Alice"), as a case variant would take over its links."""
    for part in rel.split("/"):
        stem = part[:-3] if part.lower().endswith(".md") else part
        if stem != trimmed(stem):
            seen = trimmed(stem) + part[len(stem) :]
            return (
                f"the name {part!r} in note path {rel!r} begins or ends with a space or a "
                f"blank, so it looks like {seen!r}; name the note without it"
            )
        if found := invisible_in(part):
            return (
                f"the name {part!r} in note path {rel!r} holds the invisible character "
                f"U+{ord(found):04X}, so it looks like another name; name the note "
                "without it"
            )
    return None


def separator_name(part: str, rel: str) -> str | None:
    """Why the new file or folder name ``part`` passes for another path: it holds a character
    drawn as a slash or a dot. Asked of the names a write creates only: a folder on disk
    so named (U+2215 or U+FF0F for the slash of "AC/DC") is the user's and takes new notes."""
    if drawn := separator_lookalike(part):
        char, looks = drawn
        return (
            f"the name {part!r} in note path {rel!r} holds U+{ord(char):04X} "
            f"({unicodedata.name(char, 'unnamed')}), which looks like {looks!r}, so the "
            "name passes for another path; name the note without it"
        )
    return None


def unportable_name(part: str, rel: str) -> str | None:
    """Why Obsidian refuses the file or folder name ``part`` (of note path ``rel``): a
    character that breaks links, or a name Windows (and Android's FAT storage) cannot hold."""
    for char in part:
        if char in _IN_LINKS:
            return (
                f"the name {part!r} in note path {rel!r} holds {char!r}, which Obsidian refuses "
                f"in a file name: inside a link it starts {_IN_LINKS[char]}, so no link could "
                "reach the note; name the note without it"
            )
        if char in _NOT_ON_WINDOWS:
            return (
                f"the name {part!r} in note path {rel!r} holds {char!r}, which Windows and "
                "Android's storage do not allow in a file name (nor Obsidian, on any system), "
                "so the vault could not be synced there; name the note without it"
            )
    if part.endswith((".", " ")):
        return (
            f"the name {part!r} in note path {rel!r} ends with a dot or a space, which Windows "
            "drops from a name, so the vault could not be synced there; name it without it"
        )
    if (device := part.split(".")[0].rstrip(" ").upper()) in _DEVICES:
        return (
            f"the name {part!r} in note path {rel!r} is {device!r}, a device name Windows "
            "reserves (CON, PRN, AUX, NUL, COM1-COM9, LPT1-LPT9, in any case, with any "
            "extension), so the vault could not be synced there; pick another name"
        )
    return None


def compat_key(name: str) -> str:
    """How a name shows once compatibility forms (``ﬁ``, fullwidth letters) and case are
    folded: NFKC, case-folded."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _first_new(root: Path, parts: list[str]) -> tuple[int, list[str]]:
    """The index of the first of ``parts`` not on disk as spelled (``len(parts)`` when all
    are), and the names beside it in its folder."""
    folder = root
    for i, part in enumerate(parts):
        try:
            names = os.listdir(folder)
        except OSError:  # a folder not there: every name from here is new, with none beside
            return i, []
        if part not in names:
            return i, names
        folder = folder / part
    return len(parts), []


def new_name_problem(root: Path, rel: str) -> str | None:
    """Why a write must not create the note ``rel`` (spelled as the disk lists it) under the
    vault folder ``root``, or None. Names already on disk (the folders above a new note) are
    the user's and pass; a name beside another differing only in case or Unicode form is a
    case variant, refused (409) elsewhere."""
    if problem := lookalike_name(rel):
        return problem
    parts = rel.split("/")
    first, beside = _first_new(root, parts)
    for part in parts[first:]:
        if problem := unportable_name(part, rel) or separator_name(part, rel):
            return problem
    if first == len(parts):
        return None
    new, key = parts[first], compat_key(parts[first])
    for name in sorted(beside):
        if fold(name) != fold(new) and compat_key(name) == key:
            existing = "/".join([*parts[:first], name])
            return (
                f"the name {new!r} in note path {rel!r} shows as the existing {existing!r} "
                "(the same once compatibility forms such as 'ﬁ' or fullwidth letters, and "
                "letter case, are folded), so it would pass for it; write to the existing "
                "path, or pick another name"
            )
    return None
