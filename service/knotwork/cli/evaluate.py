"""``knotwork eval``: retrieval recall and, with --answer, the model's answers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from knotwork.cli.app import app, fail, progress_bar, with_core
from knotwork.cli.escaped import say
from knotwork.core import Core
from knotwork.errors import ConfigError, KnotworkError
from knotwork.settings import get_settings


def _check_out(out: Path) -> None:
    """Refuse an --out the results could not be written to before the run, not after it."""
    folder = out.parent
    if out.is_dir():
        problem = "is a folder"
    elif not folder.is_dir():
        problem = f"no folder {folder}"
    elif not os.access(out if out.exists() else folder, os.W_OK):
        problem = "not writable"
    else:
        return
    raise ConfigError(f"--out {out}: {problem}")


def _int_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise typer.BadParameter(f"{text!r} is not a comma-separated list of integers") from exc


@app.command("eval")
def evaluate(
    questions: Annotated[
        Path, typer.Option(metavar="FILE", help="questions JSONL (gold_titles or gold_notes)")
    ],
    vault: Annotated[
        Path | None,
        typer.Option(metavar="FOLDER", help="a folder of notes to evaluate on (or --corpus)"),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="passages JSONL {title, text}: one note each (or --vault)"
        ),
    ] = None,
    k: Annotated[
        str, typer.Option("--k", metavar="K,K,…", help="cut-offs, e.g. 2,5,10")
    ] = "2,5,10",
    limit: Annotated[
        int | None, typer.Option(metavar="N", help="only the first N questions")
    ] = None,
    configs: Annotated[
        str,
        typer.Option(
            metavar="NAME,NAME,…",
            help="dense, fulltext, hybrid, full, and ablations: no-vector, no-fulltext, "
            "no-names, no-graph, no-synonym, no-temporal, no-ppr, no-note-vector "
            "(or 'ablations' for all)",
        ),
    ] = "dense,fulltext,hybrid,full",
    out: Annotated[
        Path | None, typer.Option(metavar="FILE", help="write the Markdown results here")
    ] = None,
    reuse: Annotated[
        bool, typer.Option(help="keep the ingested vault; --no-reuse rebuilds it")
    ] = True,
    name: Annotated[
        str | None,
        typer.Option(
            metavar="NAME", help="the vault is eval-NAME (default: the data folder's name)"
        ),
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            metavar="FOLDER",
            help="where --corpus notes are written (default $XDG_CACHE_HOME/knotwork/eval, "
            "else ~/.cache/knotwork/eval)",
        ),
    ] = None,
    answer: Annotated[
        str | None,
        typer.Option(
            metavar="fast|normal",
            help="fast or normal: the chat model answers each question too (EM/F1 scored)",
        ),
    ] = None,
) -> None:
    """Measure retrieval recall@k and latency per configuration; --answer scores answers too."""
    from knotwork.eval.data import default_cache
    from knotwork.eval.retrieval import (
        EvalReport,
        EvalSpec,
        check_spec,
        expand_configs,
        render,
        run_eval,
    )

    spec = EvalSpec(
        questions=questions,
        vault_dir=vault,
        corpus=corpus,
        name=name,
        cache=cache or default_cache(),
        ks=_int_list(k),
        limit=limit,
        configs=expand_configs([c.strip() for c in configs.split(",") if c.strip()]),
        reuse=reuse,
        answer_mode=answer,  # type: ignore[arg-type]  # check_spec refuses other values
    )
    try:  # bad arguments stop here, before the models load and the vault is ingested
        check_spec(spec)
        if out is not None:
            _check_out(out)
    except KnotworkError as exc:
        raise fail(exc) from exc

    async def work(core: Core) -> EvalReport:
        with progress_bar() as progress:
            return await run_eval(core, spec, progress, progress)

    report = with_core(work, models=True, ready=True)
    for error in report.sync.errors:
        say(f"ingest error: {error}", fg=typer.colors.RED, err=True)
    s = get_settings()
    text = render(
        report,
        f"embeddings {s.embed_model} ({s.embed_dimension} dimensions, {s.embed_provider}), "
        f"chunks of {s.chunk_size} characters, model extraction off",
    )
    say(text)
    if out is not None:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            say(f"error: --out {out}: {exc.strerror or exc}", fg=typer.colors.RED, err=True)
            raise typer.Exit(1) from exc
        say(f"written to {out}")


# -- knotwork neo4j ... ------------------------------------------------------------------------
