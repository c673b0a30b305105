"""Commands that ask the graph a question: ask and retrieve (note, history, stats and search
read notes: cli/notes.py).

Each prints for a person by default (citations as ``path#heading:lines``) and the same body as
the REST API or the MCP tool with ``--json``. Exit codes: 0 found, 1 the service failed (Neo4j
down), 2 bad arguments or settings, 3 nothing found (notes that do not cover the question), 4
the chat model did not answer, 5 (``ask``) an answer that cites none of the notes: unsupported.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from knotwork.cli.app import NOT_FOUND, app, fail, with_core
from knotwork.cli.escaped import say
from knotwork.cli.options import DateFrom, DateTo, Folder, Json, Tag, TopK, Trust
from knotwork.cli.printed import cite, print_json
from knotwork.core import Core
from knotwork.errors import KnotworkError
from knotwork.retrieve.config import DEFAULT_TOP_K

if TYPE_CHECKING:
    from knotwork.api.schemas import QueryRequest

MODEL_DOWN = 4
UNSUPPORTED = 5  # an answer citing none of the notes: not one to act on unchecked


async def _same_models(core: Core) -> None:
    """Refuse (ManifestMismatchError, exit 1) when the graph was embedded by another model:
    a question's vector compared with the graph's would rank by noise or fail in Neo4j, as
    the API and the MCP server refuse at start-up; before the model clients load, so said at
    once (and Neo4j down too). Warns of zero vectors an older version left
    (graph/zero_vectors.py): search passes them by until a retry embeds them again."""
    from knotwork.graph import zero_vectors

    manifest = await core.check_manifest()  # read once: the retrieval's own check reuses it
    await zero_vectors.warn_left(core.store, manifest)


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
        say(f"error: {problems}", fg=typer.colors.RED, err=True)
        raise typer.Exit(2) from exc


@contextmanager
def _warned_once() -> Iterator[None]:
    """The answer's problems (a model down, an answer cut) are printed as its warnings: the log
    records the answer module writes for the server and the MCP server, which print no body,
    would say each again, raw, on stderr. Kept with --verbose."""
    logger = logging.getLogger("knotwork.answer.respond")
    level = logger.level
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _at_terminal() -> bool:
    """Whether questions are typed at a terminal, not piped in."""
    return sys.stdin.isatty()


def _answer_exit(body: dict[str, Any]) -> int:
    if body["uncited"]:
        return UNSUPPORTED
    statuses = {"ok": 0, "insufficient_context": NOT_FOUND, "model_unavailable": MODEL_DOWN}
    return statuses[body["status"]]


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
    from knotwork.cli.answering import asked

    options = dict(
        mode=mode, top_k=top_k, folder=folder, tags=tag or [], date_from=date_from,
        date_to=date_to, trust=trust,
    )  # fmt: skip
    first = _request(question, **options) if question is not None else None

    async def one(core: Core, q: QueryRequest) -> int:
        return _answer_exit(await asked(core, q, as_json=as_json))

    async def work(core: Core) -> int:
        if first is not None:
            return await one(core, first)
        # Questions piped in (a file, a script) get no banner or prompt in the output, skip
        # blank lines, and the exit code is the first question's that did not end 0 — as if
        # each had been asked on its own. At a terminal, a session: the exit code stays 0.
        prompted, code = _at_terminal(), 0
        if prompted:
            say("Ask about your notes; an empty line or Ctrl-D ends.")
        while True:
            try:
                line = (await asyncio.to_thread(input, "\n? " if prompted else "")).strip()
            except EOFError:
                return code
            if not line:
                if prompted:
                    return code
                continue
            try:  # a question refused or failed is reported; the session goes on
                answered = await one(core, _request(line, **options))
            except typer.Exit as exc:
                answered = exc.exit_code  # _request printed why
            except KnotworkError as exc:
                answered = fail(exc).exit_code  # prints the error
            if not prompted:
                code = code or answered

    with _warned_once():
        code = with_core(work, models=True, first=_same_models)
    raise typer.Exit(code)


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
        filters = q.filters.to_filters()
        evidence = await gather(core, q.question, mode="retrieve", top_k=q.top_k, filters=filters)
        return retrieve_response(evidence, sufficient(core, evidence)).model_dump(mode="json")

    body = with_core(work, models=True, first=_same_models)
    if as_json:
        print_json(body)
    else:
        if body["status"] != "ok":
            say("the notes do not cover this well; the best partial evidence:",
                        fg=typer.colors.YELLOW)  # fmt: skip
        for i, c in enumerate(body["citations"], 1):
            found = ", ".join(sorted(c["retrievers"]))
            say(f"{i:>2}. {c['score']:.3f}  {cite(c)}  ({found})")
        for p in body["paths"][:5]:
            say(f"    via {path_line(p)}")
        for warning in body["warnings"]:
            say(f"warning: {warning}", fg=typer.colors.YELLOW)
    raise typer.Exit(0 if body["status"] == "ok" else NOT_FOUND)


def path_line(path: dict[str, Any]) -> str:
    """A retrieval path as `knotwork retrieve` prints it: its nodes joined by their hops."""
    hops = zip(path["relations"], path["nodes"][1:], strict=False)
    return str(path["nodes"][0]) + "".join(f" {_arrow(r)} {n}" for r, n in hops)


def _arrow(relation: str) -> str:
    """A path's hop as drawn: ``-R->`` followed, ``<-R-`` walked against its direction (the
    walk names those ``<-R``, retrieve/walk.py)."""
    if relation.startswith("<-"):
        return f"{relation}-"
    return f"-{relation}->"
