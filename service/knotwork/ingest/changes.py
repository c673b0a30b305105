"""What a batch is made of on its way to the graph: the changes asked for, each note's outcome,
and the batch between drafting and writing (see ingest/ingestor.py); a whole sync's report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from knotwork.graph.names import NameView
from knotwork.graph.queries.writes import NoteNamedRow
from knotwork.ingest import draft as drafting
from knotwork.ingest.batch import Batch, NoteDelete
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
    # ``embed_failed`` (EMBED_DOWN, EMBED_REJECTED), or ``CHAT_DOWN``; a sync's summary says it.
    waits_for: list[str] = field(default_factory=list)


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
# Why chunks were left pending extraction: the chat model did not answer (down, timing out).
CHAT_DOWN = "chat model unavailable"


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
    # Why the sync's chunks were left pending, each once, in the order met (NoteOutcome's).
    waits_for: list[str] = field(default_factory=list)

    def add(self, outcome: NoteOutcome) -> None:
        match outcome.status:
            case "written":
                self.written += 1
            case "unchanged":
                self.unchanged += 1
            case "renamed":
                self.renamed += 1
            case "deleted":
                self.deleted += 1
        self.chunks += outcome.chunks
        self.embedded += outcome.embedded
        self.extracted += outcome.extracted
        self.facts.update(outcome.facts)
        self.warnings += outcome.warnings
        self.waits_for += [w for w in outcome.waits_for if w not in self.waits_for]
