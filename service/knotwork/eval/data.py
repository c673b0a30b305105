"""Evaluation inputs: question files, passage corpora, and a corpus written out as a vault.

A corpus of ``{idx, title, text}`` passages becomes one note per passage so it is ingested by the
same sync as any vault; file names are sanitised, and the title is kept in frontmatter when the
name had to change, so a note's title always equals its passage's title.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from knotwork.errors import EvalInputError
from knotwork.text.anchors import heading_anchor
from knotwork.text.keys import nfc

GoldKind = Literal["titles", "sections"]
MARKER = ".knotwork-eval.json"  # written into a corpus vault; no other folder is ever cleared
MAX_NAME_BYTES = 150  # well under the 255-byte file name limit, with room for " (n).md"
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]]')  # file systems and Obsidian links
_SPACES = re.compile(r"\s+")
_RESERVED = re.compile(r"^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$", re.IGNORECASE)  # Windows


def default_cache() -> Path:
    """Where corpus notes are written: the user's cache, never the checkout (the data sets'
    text must not land in a repository)."""
    base = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser() / "knotwork" / "eval"


@dataclass(frozen=True)
class Passage:
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    """One question with its gold evidence: note titles, or ``(path, heading)`` sections."""

    id: str
    question: str
    kind: GoldKind
    gold: tuple[str, ...]  # titles, or section keys (see section_key)
    type: str = ""
    unmatched: bool = False  # some gold subject could not be matched to a passage
    answers: tuple[str, ...] = ()  # gold answers, for exact match and F1 when a model answers


def normalise_heading(text: str) -> str:
    """A heading compared loosely: as a chunk's heading path holds it (``text.anchors``: a gold
    heading copied from the note, ``Step 1: plan``, is the chunk's ``Step 1 plan``), NFC,
    case-folded, spaces collapsed, trailing ``#``/``:`` off."""
    text = unicodedata.normalize("NFC", heading_anchor(text)).casefold()
    return _SPACES.sub(" ", text).strip().rstrip("#: ").strip()


def heading_leaf(heading_path: str) -> str:
    """The last heading of a ``"A > B"`` path (chunks store their heading path that way)."""
    return heading_path.rsplit(" > ", 1)[-1]


def section_key(path: str, heading: str) -> str:
    """``path#heading`` with the heading normalised; how sections are compared."""
    return f"{path}#{normalise_heading(heading)}"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file; EvalInputError naming the file and line otherwise."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalInputError(f"{path}: cannot be read: {exc}") from exc
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalInputError(f"{path}:{number}: not valid JSON: {exc.msg}") from exc
        if not isinstance(row, dict):
            raise EvalInputError(f"{path}:{number}: expected a JSON object")
        rows.append(row)
    if not rows:
        raise EvalInputError(f"{path}: holds no rows")
    return rows


def _field(row: dict[str, Any], name: str, kind: type, where: str) -> Any:
    value = row.get(name)
    if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
        wanted = "a non-empty string" if kind is str else f"a {kind.__name__}"
        raise EvalInputError(f"{where}: field {name!r} must be {wanted}, got {value!r}")
    return value


def load_corpus(path: Path) -> list[Passage]:
    """Passages of a corpus JSONL (``title`` and ``text`` required; other fields ignored)."""
    return [
        Passage(_field(row, "title", str, f"{path}:{n}"), _field(row, "text", str, f"{path}:{n}"))
        for n, row in enumerate(read_jsonl(path), 1)
    ]


def _gold(row: dict[str, Any], where: str) -> tuple[GoldKind, tuple[str, ...]]:
    if "gold_titles" in row:
        titles = _field(row, "gold_titles", list, where)
        if not all(isinstance(t, str) for t in titles):
            raise EvalInputError(f"{where}: 'gold_titles' must be a list of strings")
        # Composed, as stored note titles are (text/keys.nfc): a decomposed gold title matches.
        return "titles", tuple(dict.fromkeys(map(nfc, titles)))
    if "gold_notes" in row:
        sections: list[str] = []
        for item in _field(row, "gold_notes", list, where):
            if not isinstance(item, dict):
                raise EvalInputError(f"{where}: 'gold_notes' items must be {{path, heading}}")
            heading = item.get("heading")
            if not isinstance(heading, str):
                raise EvalInputError(f"{where}: 'heading' must be a string, got {heading!r}")
            # "" is the text before a note's first heading (many notes have no heading at all);
            # a full heading path "A > B" is compared by its last part, as hits are.
            path = _field(item, "path", str, where)
            sections.append(section_key(path, heading_leaf(heading)))
        return "sections", tuple(dict.fromkeys(sections))
    raise EvalInputError(f"{where}: no gold evidence: expected 'gold_titles' or 'gold_notes'")


def _answers(row: dict[str, Any], where: str) -> tuple[str, ...]:
    """``answers`` (a list, 2WikiMultihopQA) or ``answer`` (a string, docs QA); none is fine."""
    value = row.get("answers", row.get("answer"))
    if value is None:
        return ()
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise EvalInputError(f"{where}: 'answers' must be a list of strings, 'answer' a string")
    return tuple(v for v in values if v.strip())


def load_questions(path: Path) -> list[Question]:
    """Questions with gold titles (2WikiMultihopQA) or gold sections (docs QA), not mixed; the
    question type is ``type``, else ``kind`` (bench/data sets)."""
    questions: list[Question] = []
    for number, row in enumerate(read_jsonl(path), 1):
        where = f"{path}:{number}"
        kind, gold = _gold(row, where)
        questions.append(
            Question(
                id=str(row.get("id", number)),
                question=_field(row, "question", str, where),
                kind=kind,
                gold=gold,
                type=str(row.get("type") or row.get("kind") or ""),
                unmatched=bool(row.get("gold_unmatched_subjects")),
                answers=_answers(row, where),
            )
        )
    kinds = {q.kind for q in questions}
    if len(kinds) > 1:
        raise EvalInputError(f"{path}: mixes questions with gold titles and gold sections")
    return questions


def note_filename(title: str) -> str:
    """A portable file name for a title: no separators, link syntax, control characters,
    leading dots (hidden files) or trailing dots and spaces; bounded length."""
    name = _UNSAFE.sub(" ", unicodedata.normalize("NFC", title))
    name = _SPACES.sub(" ", name).strip().lstrip(".~ ").rstrip(". ")
    while len(name.encode("utf-8")) > MAX_NAME_BYTES:
        name = name[:-1].rstrip(". ")
    if not name or _RESERVED.match(name):
        name = f"_{name}"
    return f"{name}.md"


def note_text(title: str, text: str, filename: str) -> str:
    """The note for a passage: its title as H1; in frontmatter too when the file name differs."""
    body = f"# {title}\n\n{text.strip()}\n"
    if filename[:-3] == title:
        return body
    return f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n{body}"


def corpus_notes(passages: list[Passage]) -> dict[str, tuple[str, str]]:
    """path → (title, note text); names that collide (ignoring case) get `` (2)``, `` (3)`` …"""
    notes: dict[str, tuple[str, str]] = {}
    taken: set[str] = set()
    for passage in passages:
        base = note_filename(passage.title)[:-3]
        name, n = base, 1
        while name.casefold() in taken:
            n += 1
            name = f"{base} ({n})"
        taken.add(name.casefold())
        filename = f"{name}.md"
        notes[filename] = (passage.title, note_text(passage.title, passage.text, filename))
    return notes


def write_corpus_vault(
    passages: list[Passage], folder: Path, fresh: bool = False
) -> dict[str, str]:
    """Write the corpus as notes under ``folder`` (only files that changed; stale notes removed).

    Returns path → title. Refuses a non-empty folder it did not create, so a wrong ``--cache``
    can never clear someone's notes; ``fresh`` empties a folder it created first.
    """
    marker = folder / MARKER
    if folder.exists() and any(folder.iterdir()) and not marker.is_file():
        raise EvalInputError(
            f"{folder} is not empty and was not written by the evaluation; choose another cache"
        )
    if fresh and folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    notes = corpus_notes(passages)
    for old in folder.glob("*.md"):
        if old.name not in notes:
            old.unlink()
    for name, (_, text) in notes.items():
        target = folder / name
        data = text.encode("utf-8")
        if not target.is_file() or target.read_bytes() != data:
            target.write_bytes(data)
    titles = {name: title for name, (title, _) in notes.items()}
    marker.write_text(json.dumps(titles, ensure_ascii=False, indent=0), encoding="utf-8")
    return titles
