"""Commands that read notes: note, history, stats and search (ask and retrieve ask questions:
cli/read.py).

Each prints for a person by default and the same body as the REST API or the MCP tool with
``--json``. Exit codes: 0 found, 1 the service failed (Neo4j down), 2 bad arguments or
settings, 3 nothing found (no such note, no matching notes).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from knotwork.cli.app import NOT_FOUND, app, with_core
from knotwork.cli.escaped import say
from knotwork.cli.options import Folder, Json, Limit, NotePath
from knotwork.cli.printed import note_fact, print_json, revision_fact, warn_no_notes
from knotwork.core import Core


@app.command()
def note(path: NotePath, as_json: Json = False) -> None:
    """A note as the graph holds it: chunks, and every fact it asserts with provenance."""
    from knotwork.errors import NoteNotFoundError
    from knotwork.retrieve.notes import note_detail

    async def work(core: Core) -> dict[str, Any]:
        try:
            return await note_detail(core, path)
        except NoteNotFoundError:
            await warn_no_notes(core)
            raise

    body = with_core(work)
    if as_json:
        print_json(body)
        return
    n = body["note"]
    say(f"{n['path']} — {n.get('title')}")
    for label, key in (("aliases", "aliases"), ("tags", "tags")):
        if n.get(key):
            say(f"{label}: {', '.join(n[key])}")
    if n.get("frontmatter_error"):  # said once by the ingest that met it; still there
        say(f"frontmatter ignored: {n['frontmatter_error']}", fg=typer.colors.YELLOW)
    say(f"\nchunks ({len(body['chunks'])}):")
    for c in body["chunks"]:
        say(
            f"  {c['ord']:>3}. {c.get('heading_path') or '(top)'}  lines "
            f"{c['line_start']}-{c['line_end']}  embedding {c['embedding_state']}, "
            f"extraction {c['extraction_state']}"
        )
    say(f"\nfacts ({len(body['facts'])}):")
    for f in body["facts"]:
        say(f"  {note_fact(f, n['path'])}")


@app.command()
def history(
    path: NotePath,
    limit: Annotated[int, Limit] = 20,
    as_json: Json = False,
) -> None:
    """A note's revisions, newest first: what each change added and removed."""
    from knotwork.errors import NoteNotFoundError
    from knotwork.graph import names as names_cache
    from knotwork.graph.names import NameIndex
    from knotwork.retrieve.notes import note_history

    async def work(core: Core) -> tuple[list[dict[str, Any]], NameIndex | None]:
        try:
            rows = await note_history(core, path, limit)
        except NoteNotFoundError:
            await warn_no_notes(core)
            raise
        if as_json:  # the stored keys, as the REST API and the graph's Revisions hold them
            return rows, None
        # The notes the keys of links and mentions name, to show them as `note` does.
        vault = core.settings.vault_name
        return rows, (await names_cache.cached(core.store, core.names, vault))[1]

    rows, names = with_core(work)
    if as_json:
        print_json(rows)
        return
    for r in rows:
        kind = f"renamed from {r['renamed_from']}" if r.get("renamed_from") else r["kind"]
        kind = f"renamed to {r['renamed_to']}" if r.get("renamed_to") else kind
        then = f"  [{r['path']}]" if r["path"] != rows[0]["path"] else ""  # before a rename
        say(f"{r['at']}  {kind}{then}  +{len(r['added'])} -{len(r['removed'])}")
        for fact in r["added"]:
            say(f"    + {revision_fact(fact, names, r['path'])}", fg=typer.colors.GREEN)
        for fact in r["removed"]:
            say(f"    - {revision_fact(fact, names, r['path'])}", fg=typer.colors.RED)


@app.command()
def stats(as_json: Json = False) -> None:
    """Counts of notes, chunks, entities, unresolved links, pending work and facts."""
    from knotwork.retrieve.notes import vault_stats

    async def work(core: Core) -> dict[str, Any]:
        body = await vault_stats(core)
        if not body["notes"]:  # `stats` is how one checks which vault one reads
            await warn_no_notes(core)
        return body

    body = with_core(work)
    if as_json:
        print_json(body)
        return
    for key, value in body.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in sorted(value.items())) or "none"
        say(f"{key.replace('_', ' ')}: {value}")


@app.command()
def search(
    text: Annotated[
        str | None, typer.Argument(metavar="TEXT", help="part of a file name, title or alias")
    ] = None,
    tag: Annotated[
        str | None, typer.Option(metavar="TAG", help="notes with this tag or one nested in it")
    ] = None,
    folder: Folder = None,
    limit: Annotated[int, Limit] = 50,
    as_json: Json = False,
) -> None:
    """Notes by name (file name, title, alias), tag or folder."""
    from knotwork.retrieve.notes import search_notes

    async def work(core: Core) -> list[dict[str, Any]]:
        rows = await search_notes(core, text, tag=tag, folder=folder, limit=limit)
        if not rows:
            await warn_no_notes(core)
        return rows

    rows = with_core(work)
    if as_json:
        print_json(rows)
    else:
        for r in rows:
            tags = f"  #{' #'.join(r['tags'])}" if r["tags"] else ""
            say(f"{r['path']}  — {r['title']}{tags}")
        if not rows:
            say("no note matches", fg=typer.colors.YELLOW, err=True)
    raise typer.Exit(0 if rows else NOT_FOUND)
