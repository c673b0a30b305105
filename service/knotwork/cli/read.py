"""Commands that read the graph: ask, retrieve, note, history, stats, search.

Each prints for a person by default (citations as ``path#heading:lines``) and the same body as
the REST API or the MCP tool with ``--json``. Exit codes: 0 found, 1 the service failed (Neo4j
down), 2 bad arguments or settings, 3 nothing found (no such note, no matching notes, or notes
that do not cover the question), 4 the chat model did not answer.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from knotwork.cli.app import NOT_FOUND, app, fail, with_core
from knotwork.cli.options import DateFrom, DateTo, Folder, Json, Limit, NotePath, Tag, TopK, Trust
from knotwork.cli.printed import cite, note_fact, revision_fact
from knotwork.core import Core
from knotwork.errors import KnotworkError
from knotwork.retrieve.config import DEFAULT_TOP_K

if TYPE_CHECKING:
    from knotwork.api.schemas import QueryRequest

MODEL_DOWN = 4


async def _same_models(core: Core) -> None:
    """Refuse (ManifestMismatchError, exit 1) when the graph was embedded by another model:
    a question's vector compared with the graph's would rank by noise or fail in Neo4j, as
    the API and the MCP server refuse at start-up. Warns of zero vectors an older version left
    (graph/zero_vectors.py): search passes them by until a retry embeds them again."""
    from knotwork.graph import schema, zero_vectors

    manifest = await schema.check_manifest(core.store, core.settings)
    await zero_vectors.warn_left(core.store, manifest)


async def _warn_no_notes(core: Core) -> None:
    """A read that found nothing warns, as ``ask`` does, when the vault holds no notes at all
    (not ingested, or KNOTWORK_VAULT_NAME mistyped); on stderr, so ``--json`` stays JSON."""
    from knotwork.retrieve.notes import no_notes_warning

    if warning := await no_notes_warning(core, core.settings.vault_name):
        typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW, err=True)


def _print_json(body: Any) -> None:
    typer.echo(json.dumps(body, ensure_ascii=False, indent=2, default=str))


def _request(question: str, **fields: Any) -> QueryRequest:
    """The REST request model validates the CLI's arguments, so both refuse alike (exit 2)."""
    from pydantic import ValidationError

    from knotwork.api.schemas import QueryRequest
    from knotwork.cli.options import option_named

    filters = {k: fields.pop(k) for k in ("folder", "tags", "date_from", "date_to", "trust")}
    try:
        return QueryRequest.model_validate({"question": question, **fields, "filters": filters})
    except ValidationError as exc:
        problems = "; ".join(f"{option_named(e['loc'])}: {e['msg']}" for e in exc.errors())
        typer.secho(f"error: {problems}", fg=typer.colors.RED, err=True)
        raise typer.Exit(2) from exc


def _print_answer(body: dict[str, Any]) -> None:
    if body["answer"] is not None:
        typer.echo(body["answer"])
    elif body["status"] == "model_unavailable":
        typer.secho("the chat model did not answer; the best evidence:", fg=typer.colors.YELLOW)
    if body["citations"]:
        typer.echo("\nsources:")
        for i, c in enumerate(body["citations"], 1):
            typer.echo(f"  [{i}] {cite(c)}")
    for dropped in body["dropped_citations"]:
        typer.secho(f"dropped a citation no source supports: {dropped}", fg=typer.colors.YELLOW)
    for warning in body["warnings"]:
        typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW)


def _answer_exit(status: str) -> int:
    return {"ok": 0, "insufficient_context": NOT_FOUND, "model_unavailable": MODEL_DOWN}[status]


@app.command()
def ask(
    question: Annotated[
        str | None,
        typer.Argument(metavar="QUESTION", help="omit for an interactive session"),
    ] = None,
    mode: Annotated[
        str,
        typer.Option(metavar="normal|fast|retrieve", help="normal, fast, or retrieve (no model)"),
    ] = "normal",
    top_k: TopK = DEFAULT_TOP_K,
    folder: Folder = None,
    tag: Tag = None,
    date_from: DateFrom = None,
    date_to: DateTo = None,
    trust: Trust = "all",
    as_json: Json = False,
) -> None:
    """Answer a question from the notes, with checked citations (the same as POST /query)."""
    from knotwork.answer.respond import answer
    from knotwork.api.schemas import query_response

    options = dict(
        mode=mode, top_k=top_k, folder=folder, tags=tag or [], date_from=date_from,
        date_to=date_to, trust=trust,
    )  # fmt: skip
    first = _request(question, **options) if question is not None else None

    async def one(core: Core, q: QueryRequest) -> int:
        result = await answer(
            core, q.question, mode=q.mode, top_k=q.top_k, filters=q.filters.to_filters()
        )
        body = query_response(result).model_dump(mode="json")
        _print_json(body) if as_json else _print_answer(body)
        return _answer_exit(body["status"])

    async def work(core: Core) -> int:
        await _same_models(core)
        if first is not None:
            return await one(core, first)
        typer.echo("Ask about your notes; an empty line or Ctrl-D ends.")
        while True:
            try:
                line = (await asyncio.to_thread(input, "\n? ")).strip()
            except EOFError:
                return 0
            if not line:
                return 0
            try:  # a question refused or failed is reported; the session goes on
                await one(core, _request(line, **options))
            except typer.Exit:
                pass  # _request printed why
            except KnotworkError as exc:
                fail(exc)  # prints the error; its exit code is not the session's

    raise typer.Exit(with_core(work, models=True))


@app.command()
def retrieve(
    question: Annotated[str, typer.Argument(metavar="QUESTION")],
    top_k: TopK = DEFAULT_TOP_K,
    folder: Folder = None,
    tag: Tag = None,
    date_from: DateFrom = None,
    date_to: DateTo = None,
    trust: Trust = "all",
    as_json: Json = False,
) -> None:
    """Ranked evidence for a question, without any model call (the same as POST /retrieve)."""
    from knotwork.answer.respond import gather, sufficient
    from knotwork.api.schemas import retrieve_response

    q = _request(question, top_k=top_k, folder=folder, tags=tag or [], date_from=date_from,
                 date_to=date_to, trust=trust)  # fmt: skip

    async def work(core: Core) -> dict[str, Any]:
        await _same_models(core)
        filters = q.filters.to_filters()
        evidence = await gather(core, q.question, mode="retrieve", top_k=q.top_k, filters=filters)
        return retrieve_response(evidence, sufficient(core, evidence)).model_dump(mode="json")

    body = with_core(work, models=True)
    if as_json:
        _print_json(body)
    else:
        if body["status"] != "ok":
            typer.secho("the notes do not cover this well; the best partial evidence:",
                        fg=typer.colors.YELLOW)  # fmt: skip
        for i, c in enumerate(body["citations"], 1):
            found = ", ".join(sorted(c["retrievers"]))
            typer.echo(f"{i:>2}. {c['score']:.3f}  {cite(c)}  ({found})")
        for p in body["paths"][:5]:
            hops = "".join(
                f" -{r}-> {n}" for r, n in zip(p["relations"], p["nodes"][1:], strict=False)
            )
            typer.echo(f"    via {p['nodes'][0]}{hops}")
        for warning in body["warnings"]:
            typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW)
    raise typer.Exit(0 if body["status"] == "ok" else NOT_FOUND)


@app.command()
def note(path: NotePath, as_json: Json = False) -> None:
    """A note as the graph holds it: chunks, and every fact it asserts with provenance."""
    from knotwork.errors import NoteNotFoundError
    from knotwork.retrieve.notes import note_detail

    async def work(core: Core) -> dict[str, Any]:
        try:
            return await note_detail(core, path)
        except NoteNotFoundError:
            await _warn_no_notes(core)
            raise

    body = with_core(work)
    if as_json:
        _print_json(body)
        return
    n = body["note"]
    typer.echo(f"{n['path']} — {n.get('title')}")
    for label, key in (("aliases", "aliases"), ("tags", "tags")):
        if n.get(key):
            typer.echo(f"{label}: {', '.join(n[key])}")
    if n.get("frontmatter_error"):  # said once by the ingest that met it; still there
        typer.secho(f"frontmatter ignored: {n['frontmatter_error']}", fg=typer.colors.YELLOW)
    typer.echo(f"\nchunks ({len(body['chunks'])}):")
    for c in body["chunks"]:
        typer.echo(
            f"  {c['ord']:>3}. {c.get('heading_path') or '(top)'}  lines "
            f"{c['line_start']}-{c['line_end']}  embedding {c['embedding_state']}, "
            f"extraction {c['extraction_state']}"
        )
    typer.echo(f"\nfacts ({len(body['facts'])}):")
    for f in body["facts"]:
        typer.echo(f"  {note_fact(f, n['path'])}")


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
            await _warn_no_notes(core)
            raise
        if as_json:  # the stored keys, as the REST API and the graph's Revisions hold them
            return rows, None
        # The notes the keys of links and mentions name, to show them as `note` does.
        vault = core.settings.vault_name
        return rows, (await names_cache.cached(core.store, core.names, vault))[1]

    rows, names = with_core(work)
    if as_json:
        _print_json(rows)
        return
    for r in rows:
        kind = f"renamed from {r['renamed_from']}" if r.get("renamed_from") else r["kind"]
        then = f"  [{r['path']}]" if r["path"] != rows[0]["path"] else ""  # before a rename
        typer.echo(f"{r['at']}  {kind}{then}  +{len(r['added'])} -{len(r['removed'])}")
        for fact in r["added"]:
            typer.secho(f"    + {revision_fact(fact, names, r['path'])}", fg=typer.colors.GREEN)
        for fact in r["removed"]:
            typer.secho(f"    - {revision_fact(fact, names, r['path'])}", fg=typer.colors.RED)


@app.command()
def stats(as_json: Json = False) -> None:
    """Counts of notes, chunks, entities, unresolved links, pending work and facts."""
    from knotwork.retrieve.notes import vault_stats

    async def work(core: Core) -> dict[str, Any]:
        body = await vault_stats(core)
        if not body["notes"]:  # `stats` is how one checks which vault one reads
            await _warn_no_notes(core)
        return body

    body = with_core(work)
    if as_json:
        _print_json(body)
        return
    for key, value in body.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in sorted(value.items())) or "none"
        typer.echo(f"{key.replace('_', ' ')}: {value}")


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
            await _warn_no_notes(core)
        return rows

    rows = with_core(work)
    if as_json:
        _print_json(rows)
    else:
        for r in rows:
            tags = f"  #{' #'.join(r['tags'])}" if r["tags"] else ""
            typer.echo(f"{r['path']}  — {r['title']}{tags}")
        if not rows:
            typer.secho("no note matches", fg=typer.colors.YELLOW, err=True)
    raise typer.Exit(0 if rows else NOT_FOUND)
