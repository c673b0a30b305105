"""How the commands print what they found for a person: a citation as
``path#heading:lines``, a note's fact, a revision's fact as ``note`` prints a fact, what a
stopped watcher leaves, the chunks reembed left pending; ``--json`` bodies and the warning of a
vault with no notes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from knotwork.cli.escaped import say
from knotwork.graph.names import Names
from knotwork.models import read_fact_key
from knotwork.plural import counted, plural
from knotwork.text.keys import BREAK, spaceless

if TYPE_CHECKING:
    from collections import Counter

    from knotwork.core import Core
    from knotwork.ingest.owed import Owed
    from knotwork.ingest.retry import Retried

_MARKED_LINK = re.compile(r"\[\[([^\[\]]+)\]\]")  # a frontmatter link's key (models.fact_key)


def cite(c: dict[str, Any]) -> str:
    heading = f"#{c['heading']}" if c.get("heading") else ""
    return f"{c['path']}{heading}:{c['line_start']}-{c['line_end']}"


def note_fact(f: dict[str, Any], path: str) -> str:
    """A fact ``note`` lists: ``RELATION → object (kind)  [extractor, line N]``, the subject
    first when it is not the note ``path`` (a model fact about an entity the note names reads
    "Kubernetes DEPENDS_ON → Postgres", not as the note's own), as ``history`` prints one."""
    who = f"{f['subject']} " if f["subject"] != path else ""
    where = f"[{f['extractor']}, line {f['line']}]"
    shown = f"{f['object']}{f.get('anchor') or ''}"  # a link to a section: "Plan.md#Budget"
    return f"{who}{f['predicate']} → {shown} ({f['object_kind']})  {where}"


def revision_fact(key: str, names: Names | None = None, source: str = "") -> str:
    """A revision's fact, stored as ``rows.canonical`` writes it (relation|subject|target|
    extractor|line|predicate|chunk id), as ``note`` prints one: ``RELATION → target  [extractor,
    line N]``, the subject first when it is not the note itself. A link's or a mention's target
    is stored as the key it is matched by ("санкт петербург", "北 京 大 学"; a frontmatter
    link's as ``[[key]]``): it is shown as the note that key names in ``names`` (the vault's
    now, as seen from the note ``source``), else as its key, a mention's as its words written
    as a name is ("北京大学"). An alias is stored as written (before, as its key)."""
    fact = read_fact_key(key)
    if fact is None:
        return key
    relation, subject, target, extractor, line, predicate, _ = fact
    if extractor == "mention":
        named = names.resolve(target, source) if names is not None else None
        target = named or _written(target)
    elif (link := _link_key(relation, extractor, target)) is not None:
        link, mark, section = link.partition("#")  # a link to a section (models.link_anchor)
        target = (names.link_target(link) if names is not None else None) or link
        target += mark + section
    said = f" ({predicate!r})" if predicate else ""
    who = f"{subject} " if subject else ""
    return f"{who}{relation}{said} → {target}  [{extractor}, line {line}]"


def _link_key(relation: str, extractor: str, target: str) -> str | None:
    """The link key a fact's stored target holds, None when the fact is no link: a wikilink's
    target; a frontmatter link's (``works_at: "[[Acme]]"``, ``project: "[[Apollo]]"``), stored
    as ``[[key]]`` (a link key holds no bracket), as a plain value under the same key never is.
    A revision written before that holds a frontmatter link's bare key, which only LINKS_TO
    tells from a plain value (a known key such as ``project`` relates both alike)."""
    if extractor == "wikilink":
        return target
    if extractor != "frontmatter":
        return None
    if marked := _MARKED_LINK.fullmatch(target):
        return marked[1]
    return target if relation == "LINKS_TO" else None


def _written(mention: str) -> str:
    """A mention key's words as text writes them: no space between two characters of a
    script written without spaces (Han, kana, Hangul; a Thai letter), none kept for a BREAK."""
    out = ""
    for before, word in zip(["", *mention.split(" ")], mention.split(" "), strict=False):
        if word == BREAK:
            continue
        out += word if not out or (spaceless(before) and spaceless(word)) else f" {word}"
    return out


def watch_stopped(root: Path | None, unwritten: int, owed: Owed) -> list[str]:
    """What a watcher stopped by Ctrl-C or SIGTERM leaves: changes it could not write (their
    warnings said why) and the chunks the models have not read yet, as ``owed`` counts them
    (ingest/owed.py, as the watcher's model work counts what it left): waiting for an
    embedding, for the model's extraction, each step named only when some chunk owes it;
    nothing is lost either way."""
    embeddings, model_pending = owed.embeddings, owed.extractions
    lines = [f"stopped watching {root}"]
    if unwritten:
        lines.append(
            f"{counted(unwritten, 'change')} {plural(unwritten, 'was', 'were')} not written (see "
            "the warnings above): the next `knotwork watch` or `knotwork ingest` writes "
            f"{plural(unwritten, 'it', 'them')}"
        )
    waits = []
    if embeddings:
        its = plural(embeddings, "its", "their")
        waits.append(f"{_waiting(embeddings)} for {its} embedding")
    if model_pending:  # after the embeddings, "chunks" is understood
        waits.append(
            f"{model_pending if waits else _waiting(model_pending)} for the model's extraction"
        )
    if waits:
        them = plural(embeddings + model_pending, "it", "them")
        lines.append(
            f"{', '.join(waits)}: the next `knotwork watch` or `knotwork retry` does {them}"
        )
    return lines


def _waiting(chunks: int) -> str:
    return f"{counted(chunks, 'chunk')} {plural(chunks, 'waits', 'wait')}"


def errors_put_back(n: int) -> str:
    """What `retry --errors` put back to pending."""
    return (
        f"{counted(n, 'chunk')} whose extraction had failed {plural(n, 'is', 'are')} pending again"
    )


def retried(done: Retried) -> tuple[str, str | None]:
    """What `retry` did, and what it left pending or failed and why (None: nothing left)."""
    did = f"embedded {counted(done.embedded, 'chunk')}, extracted {done.extracted}"
    left = []
    if done.failed:  # asked, and now recorded as an error: not pending, yet not done
        were = plural(done.failed, "was recorded as an error", "were recorded as errors")
        left.append(
            f"{counted(done.failed, 'chunk')} failed extraction for good (the model answered "
            f"garbage for {plural(done.failed, 'its text', 'their texts')} twice, or refused "
            f"{plural(done.failed, 'it', 'them')}; see the warnings above) and {were}: "
            "`knotwork retry --errors` after changing the model or its context"
        )
    if done.pending:
        them = plural(done.pending, "it", "them")
        why = (
            "the model did not answer (or answered garbage to every request, a probe too); "
            "`knotwork doctor` checks it, then run `knotwork retry` again"
            if done.model_down
            else f"a pass made no progress on {them} (see the warnings above)"
        )
        left.append(f"{counted(done.pending, 'chunk')} still pending: {why}")
    return did, "\n".join(left) or None


def reembed_refused(refused: dict[str, Counter[str]], model: str, vault: str) -> list[str]:
    """The chunks whose text ``model`` refused during `reembed` (vault → note path → chunks),
    a line a vault: "1 chunk of 1 note (a.md) was refused by all-minilm and waits for
    `knotwork retry`", a vault other than ``vault`` (KNOTWORK_VAULT_NAME) with the setting
    its retry needs."""
    from knotwork.ingest.waiting import SHOWN, Waiting

    lines = []
    for name, notes in sorted(refused.items(), key=lambda item: (item[0] != vault, item[0])):
        chunks, paths = sum(notes.values()), sorted(p for p in notes if p)
        retry = "`knotwork retry`" + ("" if name == vault else f" with KNOTWORK_VAULT_NAME={name}")
        lines.append(
            f"{Waiting(len(paths), chunks, paths[:SHOWN])} {plural(chunks, 'was', 'were')} "
            f"refused by {model} and {plural(chunks, 'waits', 'wait')} for {retry}"
        )
    return lines


def print_json(body: Any) -> None:
    """``--json``: the body as REST and MCP give it, non-ASCII kept as written; DEL, C1 and
    bidi controls, which json.dumps leaves raw, written as JSON escapes (``escaped``)."""
    say(json.dumps(body, ensure_ascii=False, indent=2, default=str))


async def warn_no_notes(core: Core) -> None:
    """A read that found nothing warns, as ``ask`` does, when the vault holds no notes at all
    (not ingested, or KNOTWORK_VAULT_NAME mistyped); on stderr, so ``--json`` stays JSON."""
    from knotwork.retrieve.notes import no_notes_warning

    if warning := await no_notes_warning(core, core.settings.vault_name):
        say(f"warning: {warning}", fg=typer.colors.YELLOW, err=True)
