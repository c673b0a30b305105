"""What a sync will do: the vault folder read against the graph's hashes — notes new, changed,
moved (ingest/move_pairs.py) and gone — and, worked out while the first notes are drafted,
the vault's names once the sync is applied and what it owes the notes it does not write."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from knotwork.errors import KnotworkError, VaultUnavailableError
from knotwork.graph.names import NameIndex
from knotwork.graph.queries.admin import CALIBRATION_DROP, SCRATCH_KEPT_NOTES
from knotwork.graph.queries.writes import (
    NOTE_HASHES,
    SYNC_OWED,
    VAULT_FOLDER_SET,
    VAULT_NAMES,
)
from knotwork.ingest.changes import Progress, SyncReport, SyncStep, Upsert
from knotwork.ingest.draft import parse
from knotwork.ingest.facts import changed_keys, new_note_keys
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.kept_gone import to_delete
from knotwork.ingest.move_pairs import by_content, edited_moves
from knotwork.ingest.rows import FACTS_VERSION, note_props
from knotwork.plural import counted, plural
from knotwork.vault.files import NoteScan, read_group, scan_notes
from knotwork.vault.folders import (
    EMPTY,
    GONE_FOR_GOOD,
    AnotherFolderError,
    VaultFolders,
    empty_while_held,
    folder_unseen,
    gone_from,
    vault_folders,
)

READ_GROUP = 64  # files read per trip to a worker thread
# Notes parsed for the final names per trip to a worker thread; a sync of more notes than one
# group tells each group done (seconds in a large vault, before the first write).
NAMES_GROUP = 250


@dataclass
class Plan:
    """What a sync does: the notes to write and delete, the names once it is applied, and what
    it owes the notes it does not write."""

    upserts: list[Upsert]
    deletes: list[str]
    names: NameIndex  # the vault's names once the sync is applied
    reverse_keys: list[str]  # mentions to rewrite in the notes the sync does not write
    link_keys: list[str]  # their links to re-resolve: the keys of the notes the sync creates
    owed: bool  # an earlier sync, cut off, left keys to pay (included above)
    # What the sync owes if it is cut off before its last batch, recorded by its first: the
    # keys above and those of the notes it deletes or moves away (a note written earlier in
    # the sync was resolved without them; restored before the next sync, they must move back).
    record: dict[str, list[str]]


async def plan_sync(
    ingestor: Ingestor,
    report: SyncReport,
    progress: Progress | None,
    new_folder: bool = False,
    parsed: Progress | None = None,
    vault_path: Path | None = None,
) -> tuple[list[Upsert], list[str], asyncio.Task[Plan]]:
    """Read the folder and the graph's hashes: what to write, move and delete, and the names
    once that is done (a task: worked out while the first notes are drafted and embedded).
    ``progress`` counts the files read, so a bar moves from the first second of a large
    vault. ``new_folder``: the folder replaces the one the vault was synced from (its notes
    the folder lacks are deleted); else a sync of another folder stops (VaultFolderError).
    ``parsed``: told the notes parsed for the names, when they are more than one group.
    ``vault_path``: the vault path the folder was resolved from (sync.py ``pinned``); led elsewhere
    once the folder is read, nothing is deleted: the next sync reads the folder it leads to."""
    assert ingestor.root is not None
    root, settings = ingestor.root, ingestor.settings
    # The graph's hashes, the folder the vault was synced from and the folder's listing, at once.
    rows, folders, scan = await asyncio.gather(
        ingestor.core.store.read(
            NOTE_HASHES,
            vault=ingestor.vault,
            facts_version=FACTS_VERSION,
            language_setting=ingestor.language_setting,
        ),
        vault_folders(ingestor.core.store, ingestor.vault, root),
        asyncio.to_thread(scan_notes, root),  # symlinks skipped, case variants named
    )
    stored = {row["path"]: row["content_hash"] for row in rows}
    # A placeholder (no hash: a link's target a sync cut off before writing it) is no note of
    # the folder's: a note at its path is new, or moved there, not stored.
    held = sum(1 for digest in stored.values() if digest is not None)
    # Derived under older rules or another language setting: rewritten even when unchanged.
    outdated = {row["path"] for row in rows if not row["current"]}
    _check_seen(root, scan, held, ingestor.vault)
    paths, report.warnings = scan.paths, scan.warnings
    report.errors += scan.errors  # names no note can have: not ingested, as a binary file
    report.notes = len(paths)
    texts: dict[str, tuple[str, float]] = {}
    hashes: dict[str, str] = {}
    unread: set[str] = set()  # listed but not readable: the graph keeps what it holds
    for start in range(0, len(paths), READ_GROUP):
        group = paths[start : start + READ_GROUP]
        if progress:  # the files read so far: the bar ends at all of them, once read
            progress(start, len(paths), SyncStep.READING.told(group[0]))
        for path, read in await asyncio.to_thread(read_group, root, group, settings.max_note_bytes):
            if isinstance(read, KnotworkError):
                kept = "; the graph keeps its last version" if stored.get(path) else ""
                report.errors.append(f"{read}{kept}")
                unread.add(path)
                continue
            note, hashes[path] = read
            report.warnings += note.warnings
            texts[path] = (note.text, note.mtime)
    if progress and paths:
        progress(len(paths), len(paths), SyncStep.READING.told(paths[-1]))
    # Judged once read: a folder holds a note of the vault only with its path and its content.
    await _refuse_another_folder(ingestor, folders, stored, hashes, new_folder)
    if hashes and all(digest is None for digest in stored.values()):
        await _first_notes(ingestor)
    # A folder listed, then gone before it was walked (moved on meanwhile) is not unreadable:
    # the folder changed while it was read, as a file vanished before its read.
    gone_folders = await asyncio.to_thread(gone_from, root, set(scan.unreadable))
    unlisted = sorted(set(scan.unreadable) - gone_folders)
    for folder in unlisted:
        under = sum(1 for p, h in stored.items() if h and p.startswith(f"{folder}/"))
        report.errors.append(
            f"{folder}/: cannot be listed ({scan.unreadable[folder]}); the graph keeps the "
            f"{counted(under, 'note')} it holds under it as {plural(under, 'it was', 'they were')}"
        )
    # The notes kept, as the errors say; not a file gone since it was listed: no note now.
    missed = await asyncio.to_thread(gone_from, root, unread) if unread else set()
    report.notes -= len(missed)
    if ingestor.kept_from is not None and (unread - missed or unlisted):
        stored |= await _kept_notes(ingestor, unread - missed, unlisted)
    within = tuple(f"{folder}/" for folder in unlisted)
    keep = (unread - missed) | {p for p in stored if p.startswith(within)}
    report.kept = {p for p in keep if stored.get(p)}
    # Only what the scan saw to be absent is gone: a note it could not read, or under a folder
    # it could not list, is kept as the graph holds it.
    gone = {
        p: h for p, h in stored.items() if p not in texts and p not in unread and not scan.unseen(p)
    }
    # A note that vanished while a new one with the same content appeared has moved; one with
    # its file name and most of its text, moved and edited (ingest/move_pairs.py).
    fresh = {p: h for p, h in hashes.items() if stored.get(p) is None}
    moved = by_content(gone, fresh)
    left = sorted({p for p, h in gone.items() if h is not None} - set(moved.values()))
    edited = [Upsert(p, *texts[p], new=True) for p in sorted(fresh.keys() - moved)] if left else []
    await edited_moves(ingestor.core.store, ingestor.vault, left, edited, settings.chunk_size)
    moved |= {u.path: u.renamed_from for u in edited if u.renamed_from}
    notes = {u.path: u.note for u in edited}
    deleted = sorted(set(gone) - set(moved.values()))
    deleted = await to_delete(report, deleted, missed | gone_folders, vault_path, root)
    work = [p for p in texts if stored.get(p) != hashes[p] or p in outdated]
    report.unchanged += len(texts) - len(work)
    upserts = [
        Upsert(p, *texts[p], moved.get(p), notes.get(p), new=stored.get(p) is None) for p in work
    ]
    planned = asyncio.create_task(_planned(ingestor, upserts, deleted, set(stored), parsed))
    return upserts, deleted, planned


async def _planned(
    ingestor: Ingestor,
    upserts: list[Upsert],
    deleted: list[str],
    stored: set[str],
    parsed: Progress | None = None,
) -> Plan:
    names, keys, others, appearing = await _final_names(ingestor, upserts, deleted, stored, parsed)
    [debt] = await ingestor.core.store.read(SYNC_OWED, vault=ingestor.vault)
    owed = bool(debt["reverse"] or debt["links"])
    link_keys = sorted({*new_note_keys(appearing), *debt["links"]})
    reverse = sorted({*keys, *debt["reverse"]}) if ingestor.settings.mentions else []
    gone = new_note_keys([*deleted, *(u.renamed_from for u in upserts if u.renamed_from)])
    record = {"reverse": reverse, "links": sorted({*link_keys, *gone})}
    if not stored:  # a first sync owes nothing: what it did not write, the next writes as new
        record = {"reverse": [], "links": []}
    if not others:  # nothing the sync does not write: no mentions or links of others to move
        reverse, link_keys = [], []
    return Plan(upserts, deleted, names, reverse, link_keys, owed, record)


async def _kept_notes(
    ingestor: Ingestor, unread: set[str], folders: list[str]
) -> dict[str, str | None]:
    """verify's scratch sync (``Ingestor.kept_from``): the notes of the vault checked that the
    folder holds but cannot read or list, copied into the scratch vault as that vault's sync
    keeps them, so links and mentions resolve to them as they do there."""
    rows = await ingestor.core.store.write(
        SCRATCH_KEPT_NOTES,
        source=ingestor.kept_from,
        vault=ingestor.vault,
        paths=sorted(unread),
        folders=folders,
    )
    return {row["path"]: row["content_hash"] for row in rows}


def _check_seen(root: Path, scan: NoteScan, stored: int, vault: str) -> None:
    """Stop before a sync deletes what it could not see: the vault folder missing, unreadable,
    or empty (an unmounted drive's mount point) while the graph holds notes of it."""
    nothing = "; nothing in the graph was changed"
    unseen = folder_unseen(root)
    if unseen in (None, EMPTY) and "." in scan.unreadable:  # as the scan found it
        unseen = f"cannot be listed ({scan.unreadable['.']})"
    if unseen == EMPTY:
        if stored and not scan.paths:
            raise VaultUnavailableError(f"the vault folder {root} {empty_held(stored, vault)}")
    elif unseen:
        raise VaultUnavailableError(f"the vault folder {root} {unseen}{nothing}")


async def _refuse_another_folder(
    ingestor: Ingestor,
    folders: VaultFolders,
    stored: dict[str, str | None],
    hashes: dict[str, str],
    new_folder: bool,
) -> None:
    """Stop before a sync takes the notes of another folder for deleted (the rule:
    ``VaultFolders.another``, which doctor asks too). A folder the sync may read is recorded
    as the vault's, and so is one given with ``new_folder``."""
    if folders.recorded:
        return
    refused = folders.another(ingestor.vault, stored, hashes)
    if refused is not None and not new_folder:
        raise AnotherFolderError(refused)
    await ingestor.core.store.write(
        VAULT_FOLDER_SET, vault=ingestor.vault, folder=folders.path, folder_id=folders.ident
    )


async def _first_notes(ingestor: Ingestor) -> None:
    """Notes about to be written into a vault holding none (new, or emptied with a ``.keep``
    and filled again): a first sync. A relevance floor the vault kept measured other notes,
    maybe in other languages, so it goes: the sync's caller calibrates the vault as after any
    first sync (cli/vault.py), and the gate meanwhile reads raw cosines."""
    await ingestor.core.store.write(CALIBRATION_DROP, vault=ingestor.vault)
    ingestor.core.relevance_floors.clear()


def empty_held(held: int, vault: str) -> str:
    """What the sync and the watcher say of an empty vault folder while the graph holds
    ``held`` notes of it: they refuse to take them for deleted, and say how to confirm it."""
    return f"{empty_while_held(held, vault)}; nothing in the graph was changed. {GONE_FOR_GOOD}"


async def _final_names(
    ingestor: Ingestor,
    upserts: list[Upsert],
    deleted: list[str],
    stored: set[str],
    parsed: Progress | None = None,
) -> tuple[NameIndex, list[str], bool, list[str]]:
    """The vault's names once the sync is applied, the names whose mentions in the notes the
    sync does not write must be rewritten (those of notes that appear, go or move), whether
    there are such notes, and the notes that appear (new, or filling a placeholder a sync cut
    off left: either way other notes' links to their keys may now resolve)."""
    names = NameIndex.from_rows(await ingestor.core.store.read(VAULT_NAMES, vault=ingestor.vault))
    keys: set[str] = set()

    def parse_group(group: list[Upsert]) -> None:
        for u in group:  # the first ones may be parsed by their drafting already
            u.note = u.note or parse(u.path, u.text)

    told = parsed if len(upserts) > NAMES_GROUP else None
    for start in range(0, len(upserts), NAMES_GROUP):
        group = upserts[start : start + NAMES_GROUP]
        if told:
            told(start, len(upserts), group[0].path)
        await asyncio.to_thread(parse_group, group)
    if told:
        told(len(upserts), len(upserts), upserts[-1].path)
    for gone in [*deleted, *(u.renamed_from for u in upserts if u.renamed_from)]:
        keys |= set(names.keys_of(gone))
        names.remove(gone)
    appearing = [u.path for u in upserts if u.path not in names]
    for u in upserts:
        assert u.note is not None
        props = note_props(u.note, u.mtime)
        old = set(names.keys_of(u.path))
        if u.renamed_from or u.path not in names:
            keys |= old | set(props["mkeys"])
        else:
            keys |= changed_keys(old, props["mkeys"])
        names.put(u.path, props["lpath"], props["mkeys"])
    written = {u.path for u in upserts} | set(deleted)
    others = stored - written - {u.renamed_from for u in upserts}
    return names, sorted(keys), bool(others), appearing
