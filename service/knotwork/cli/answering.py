"""How ``knotwork ask`` shows an answer while the models work: on stderr, while it is a
terminal, a spinner naming the step under way (the notes searched, the chat model's answer
awaited); on stdout, while it is a terminal and no ``--json`` is asked for, the answer's text as
the model writes it (its citations already checked and its markers cut, as the API streams it),
then its sources. Any other stdout (a pipe, a file, ``--json``) gets the whole answer at once."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer

from knotwork.cli.app import console, running_columns
from knotwork.cli.escaped import say
from knotwork.cli.printed import cite, print_json
from knotwork.core import Core

if TYPE_CHECKING:
    from knotwork.answer.respond import Answer
    from knotwork.api.schemas import QueryRequest

# What runs before the answer's first words, by mode: only ``normal`` asks the chat model for
# the question's keywords first (seconds, or a minute on a CPU model).
SEARCHING = {
    "normal": "searching the notes; the chat model picks keywords",
    "fast": "searching the notes",
    "retrieve": "searching the notes",
}
ANSWERING = "waiting for the chat model's answer"
WRITING = "the chat model is writing the answer"
# What the citations of each kind of body are: an answer's sources, or, under the refusal's
# sentence, the best partial evidence, which does not answer the question.
SOURCES = "sources:"
CLOSEST = "closest passages found (not enough to answer):"
UNSUPPORTED = "unsupported: the answer cites none of your notes; check it against these passages:"


@contextmanager
def status(what: str) -> Iterator[Callable[[str | None], None]]:
    """A spinner on stderr naming the step under way and how long it has run; yields the call
    that names the next step, or with None takes the spinner away for good (the answer's text
    comes next, on the same terminal). Off a terminal, nothing: the output is the answer."""
    if not console().is_terminal:
        yield lambda _: None
        return
    from rich.progress import Progress, TextColumn

    turning, clock = running_columns()
    columns = (turning, TextColumn("{task.description}"), clock)
    with Progress(*columns, console=console(), transient=True) as spinner:
        task = spinner.add_task(what, total=None)
        gone = False

        def step(what: str | None) -> None:
            nonlocal gone
            if gone:
                return
            if what is None:
                gone = True
                spinner.stop()  # transient: its line is cleared
            else:
                spinner.reset(task, total=None, description=what)  # each step's own time

        yield step


def print_answer(body: dict[str, Any], streamed: str = "") -> None:
    """An answer's body for a person. ``streamed``: the text already printed as it came; when
    it is the answer, only the line is ended. When it is not (the model's reply turned out to
    be a refusal, or it failed midway: the final body has the last word, as in the API's
    stream), the body follows it in full. An answer that cites none of the notes is said to be
    unsupported, above the passages it was given (``evidence``), each with its snippet."""
    if streamed:
        say()
    if body["answer"] is not None and body["answer"] != streamed:
        say(body["answer"])
    elif body["status"] == "model_unavailable":
        say("the chat model did not answer; the best evidence:", fg=typer.colors.YELLOW)
    if body.get("uncited"):
        say(f"\n{UNSUPPORTED}", fg=typer.colors.YELLOW)
        for c in body["evidence"]:
            say(f"  - {cite(c)}")
            say(f"    {' '.join(c['snippet'].split())}")
    if body["citations"]:
        # Unnumbered: a stray "[1]" in the answer must not read as a pointer into this list.
        # A source is found by its label, "[path#heading]" in the text, "path#heading" here.
        refused = body["status"] == "insufficient_context"
        say(f"\n{CLOSEST if refused else SOURCES}")
        for c in body["citations"]:
            say(f"  - {cite(c)}")
    for dropped in body["dropped_citations"]:
        say(f"dropped a citation no source supports: {dropped}", fg=typer.colors.YELLOW)
    for warning in body["warnings"]:
        say(f"warning: {warning}", fg=typer.colors.YELLOW)


async def asked(core: Core, q: QueryRequest, *, as_json: bool) -> dict[str, Any]:
    """Answer ``q`` and print it (``--json``: the body of POST /query, one document), showing
    what runs meanwhile; the body printed."""
    from knotwork.answer.respond import DoneEvent, EvidenceEvent, answer_stream
    from knotwork.api.cut_markers import MarkerCut
    from knotwork.api.schemas import query_response

    streams = not as_json and sys.stdout.isatty()
    pieces: list[str] = []
    result: Answer | None = None
    # The tokens' markers cut as the final body's are (as the API streams them): the text
    # streamed is the answer, and is not printed again.
    cut, writing = MarkerCut(()), False
    events = answer_stream(
        core, q.question, mode=q.mode, top_k=q.top_k, filters=q.filters.to_filters()
    )

    def echo(text: str) -> None:
        pieces.append(text)
        if streams and text:
            say(text, nl=False)
            sys.stdout.flush()

    with status(SEARCHING[q.mode]) as step:
        async for event in events:
            if isinstance(event, EvidenceEvent):
                cut = MarkerCut(event.evidence.hits)
                step(ANSWERING)  # a DoneEvent follows at once when no model call is due
            elif isinstance(event, DoneEvent):
                echo(cut.close())  # a marker held to the end
                result = event.answer
            else:
                if not writing:  # streamed, the words take the spinner's terminal: it goes
                    step(None if streams else WRITING)
                    writing = True
                echo(cut.feed(event.text))
    assert result is not None, "the answer's events end with the answer"
    body = query_response(result).model_dump(mode="json")
    if as_json:
        print_json(body)
    else:
        print_answer(body, "".join(pieces) if streams else "")
    return body
