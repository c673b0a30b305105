"""A whole vault into the graph: find what is new, changed, moved or gone, and apply it."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from knotwork.errors import KnotworkError
from knotwork.ingest import Ingestor, NoteOutcome
from knotwork.rows import FACTS_VERSION
from knotwork.vault import read_note, scan_notes

Progress = Callable[[int, int, str], None]


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


async def sync_vault(ingestor: Ingestor, progress: Progress | None = None) -> SyncReport:
    """Bring the graph in step with the vault folder; one transaction per note."""
    if ingestor.root is None:
        raise KnotworkError("no vault folder: set KNOTWORK_VAULT_PATH or pass a path")
    root, limit = ingestor.root, ingestor.settings.max_note_bytes
    report = SyncReport()
    stored = {
        row["path"]: row["content_hash"]
        for row in await ingestor.core.store.read(
            "note_hashes", vault=ingestor.vault, facts_version=FACTS_VERSION
        )
    }
    scan = scan_notes(root)  # symlinks skipped, case variants named: both with a warning
    paths, report.warnings = scan.paths, scan.warnings
    report.notes = len(paths)
    texts: dict[str, tuple[str, float]] = {}
    for path in paths:
        try:
            note = read_note(root, path, limit)
        except KnotworkError as exc:
            report.errors.append(str(exc))
            continue
        report.warnings += note.warnings
        texts[path] = (note.text, note.mtime)
    hashes = {
        p: hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest()
        for p, (t, _) in texts.items()
    }
    gone = {p: h for p, h in stored.items() if p not in texts}
    # A note that vanished while a new one with the same content appeared has moved.
    moved: dict[str, str] = {}
    by_hash: dict[str, list[str]] = {}
    for path, digest in sorted(gone.items()):
        by_hash.setdefault(digest, []).append(path)
    for path, digest in sorted(hashes.items()):
        if path not in stored and by_hash.get(digest):
            moved[path] = by_hash[digest].pop(0)
    deleted = sorted(set(gone) - set(moved.values()))
    work = [p for p in texts if stored.get(p) != hashes[p]]
    deferred, ingestor.defer_entity_links = ingestor.defer_entity_links, True
    try:
        await _apply(ingestor, report, work, texts, moved, deleted, progress)
    finally:
        ingestor.defer_entity_links = deferred
    report.linked = await ingestor.link_entities()
    report.unchanged += len(texts) - len(work)
    return report


async def _apply(
    ingestor: Ingestor,
    report: SyncReport,
    work: list[str],
    texts: dict[str, tuple[str, float]],
    moved: dict[str, str],
    deleted: list[str],
    progress: Progress | None,
) -> None:
    total, done = len(work) + len(deleted), 0
    for path in work:
        text, mtime = texts[path]
        try:
            if path in moved:
                outcome = await ingestor.rename(moved[path], path, text)
            else:
                outcome = await ingestor.upsert_text(path, text, mtime)
            report.add(outcome)
        except KnotworkError as exc:
            report.errors.append(f"{path}: {exc}")
        done += 1
        if progress:
            progress(done, total, path)
    for path in deleted:
        report.add(await ingestor.delete(path))
        done += 1
        if progress:
            progress(done, total, path)
