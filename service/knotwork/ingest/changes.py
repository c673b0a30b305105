"""What a batch is made of on its way to the graph: the changes asked for, each note's outcome,
and the batch between drafting and writing (see ingest/ingestor.py); a whole sync's report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from knotwork.graph.names import NameView
from knotwork.graph.queries.writes import NoteNamedRow
from knotwork.ingest import draft as drafting
from knotwork.ingest.batch import Batch, NoteDelete
from knotwork.ingest.modelcalls import POSTPONED
from knotwork.models import ParsedNote


@dataclass
class NoteOutcome:
    path: str
    status: str  # "written" | "unchanged" | "deleted" | "renamed" | "missing"
    chunks: int = 0
    embedded: int = 0
    extracted: int = 0
    facts: Counter[str] = field(default_factory=Counter)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    models_down: bool = False
    # Chunks whose model extraction is still to come when the outcome is given: a write that
    # does not wait for the model (the watcher's, a REST write's) leaves them to a background
    # pass; one that waits leaves those the model did not do (down, or postponed).
    pending: int = 0
    # Why a model left some of its chunks pending, as the write met it: ``ModelCalls``'s
    # ``embed_failed`` (EMBED_DOWN, EMBED_REJECTED), or ``CHAT_DOWN`` / ``CHAT_GARBAGE``; a
    # sync's summary says it.
    waits_for: list[str] = field(default_factory=list)
    renamed_from: str | None = None  # a "renamed" note's old path


@dataclass
class Upsert:
    """Write a note from its text (``note``: already parsed, e.g. by a sync; ``new``: the graph
    is known to hold no note at ``path``, so its state is not read)."""

    path: str
    text: str
    mtime: float | None = None
    renamed_from: str | None = None
    note: ParsedNote | None = None
    new: bool = False


@dataclass
class Delete:
    path: str


Change = Upsert | Delete


@dataclass
class Prepared:
    """A batch ready to write: the writer's batch, and an outcome per change in order."""

    batch: Batch
    outcomes: list[NoteOutcome]
    drafts: dict[str, drafting.Draft]
    view: NameView | None = None  # the batch's names, over the cached ones
    token: str | None = None  # the names stamp the cached names were read under


@dataclass
class Drafted:
    """A batch drafted and embedded, before any name is resolved."""

    states: Mapping[str, NoteNamedRow]  # what the graph held of the notes changed
    outcomes: list[NoteOutcome]
    drafts: dict[str, drafting.Draft]
    deletes: list[NoteDelete]


Progress = Callable[[int, int, str], None]  # (done, total, what): a progress bar's call


class SyncStep(StrEnum):
    """The steps a sync's progress names, each message starting with one (``writing notes:
    a.md``), counted in that step's own unit. Defined once: the CLI's bar, MCP's progress
    notifications and the stop line of an `ingest` cut off (cli/stopped.py) read them."""

    READING = "reading notes"  # files read (ingest/plan.py)
    NAMING = "parsing notes for their names"  # notes parsed, before the first write
    PARSING = "parsing notes"  # notes written, while the writer waits for a parse
    EMBEDDING = "embedding chunks"  # the chunks of the unit the writer waits for
    WRITING = "writing notes"  # notes written, each batch as its write lands
    LINKS = "writing mentions and links"  # the last batch's, after its notes
    EXTRACTING = "extracting facts from chunks"  # a written batch's chunks the model read
    LINKING = "linking similar entities"  # after the last batch

    def told(self, detail: str = "") -> str:
        """The message a progress bar is told: the step, then what it is at."""
        return f"{self.value}: {detail}" if detail else self.value

    @classmethod
    def of(cls, what: str) -> SyncStep | None:
        """The step ``what`` names; None for a message of no sync step (a calibration's)."""
        try:
            return cls(what.partition(": ")[0])
        except ValueError:
            return None


# Why chunks were left pending extraction: the chat model did not answer (down, timing out),
# or answered garbage to every request (its probe too; extract_chunks.GARBAGE_ALWAYS).
CHAT_DOWN = "chat model unavailable"
CHAT_GARBAGE = "chat model answers garbage"
# An extraction postponed while the chat model is let be, after a call found it down: the
# call that found it says why; the notes after it only repeat it (ingest/modelcalls.py).
LET_BE = f"{POSTPONED}model unavailable"


def shared_trouble(outcome: NoteOutcome, warning: str) -> bool:
    """Whether ``warning`` of ``outcome`` only repeats a model's trouble that every note of a
    call meets alike: the embedding model down or answering garbage for every text
    (``models_down``), or the chat model let be. A text the model refuses alone, or the
    extraction that found the chat model failing (it says why), is the note's own."""
    if warning == f"{outcome.path}{LET_BE}":
        return True
    return outcome.models_down and any(
        warning.startswith(f"{outcome.path}: {why}; ") for why in outcome.waits_for
    )


@dataclass
class SyncReport:
    notes: int = 0  # notes in the vault
    written: int = 0
    unchanged: int = 0
    renamed: int = 0
    deleted: int = 0
    chunks: int = 0
    embedded: int = 0
    extracted: int = 0
    linked: int = 0  # similarity edges made between new entities
    facts: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Notes found gone but kept: files vanished between the listing and their read (the folder
    # changing meanwhile), and the gone notes may have moved there. The next sync decides.
    kept_gone: int = 0
    # Notes the graph keeps at their last version, the folder holding them but the sync unable
    # to read them (binary, too large, UTF-16…) or to list the folder they are in; each is
    # named in ``errors``. verify's fresh parse keeps the same ones (check/verify.py).
    kept: set[str] = field(default_factory=set)
    # Why the sync's chunks were left pending, each once, in the order met (NoteOutcome's).
    waits_for: list[str] = field(default_factory=list)
    # Of ``warnings``, those that only repeat a model's trouble note after note
    # (``shared_trouble``): a person is told it once, by the summary's pending line and the
    # trouble's own log line, not once a note (``own_warnings``).
    shared: list[str] = field(default_factory=list)
    # Notes of the batches committed so far (written, moved or deleted), each once, added as
    # each batch's transaction ends, before its extraction: what a sync stopped half way wrote
    # (`ingest`'s stop line), and the notes its progress counts as written.
    committed_notes: set[str] = field(default_factory=set, repr=False)
    # What landed, in order, as the watcher says it (watch/said.py): (what, path), a move's
    # path as "old → new"; notes unchanged are not listed.
    landed: list[tuple[str, str]] = field(default_factory=list, repr=False)

    @property
    def committed(self) -> int:
        return len(self.committed_notes)

    @property
    def own_warnings(self) -> list[str]:
        """``warnings`` less ``shared``: each about a note (or the folder) itself."""
        shared = set(self.shared)
        return [w for w in self.warnings if w not in shared]

    def add(self, outcome: NoteOutcome) -> None:
        match outcome.status:
            case "written":
                self.written += 1
                self.landed.append(("written", outcome.path))
            case "unchanged":
                self.unchanged += 1
            case "renamed":
                self.renamed += 1
                self.landed.append(("moved", f"{outcome.renamed_from} → {outcome.path}"))
            case "deleted":
                self.deleted += 1
                self.landed.append(("deleted", outcome.path))
        self.chunks += outcome.chunks
        self.embedded += outcome.embedded
        self.extracted += outcome.extracted
        self.facts.update(outcome.facts)
        self.warnings += outcome.warnings
        self.shared += [w for w in outcome.warnings if shared_trouble(outcome, w)]
        self.waits_for += [w for w in outcome.waits_for if w not in self.waits_for]
