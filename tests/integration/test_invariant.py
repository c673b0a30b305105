"""Invariant 1: after any sequence of edits, renames and deletes, the graph equals the graph
built from scratch from the final vault — checked by a hypothesis state machine."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from knotwork.check.verify import snapshot
from knotwork.core import Core, open_core
from knotwork.graph.queries.admin import NOTE_MTIMES
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget, ad_hoc, stale_revisions, stored_notes
from tests.integration.test_note_vectors import stale_note_vectors

T = TypeVar("T")
NAMES = ["Alice", "Bob", "Carol", "Dave", "Eve"]
FOLDERS = ["", "team/", "archive/"]
PHRASES = ["works with", "reports to", "lavora con", "arbeitet mit", "uses", "see"]

paths = st.builds(lambda f, n: f"{f}{n}.md", st.sampled_from(FOLDERS), st.sampled_from(NAMES))
link_lines = st.builds(
    lambda who, phrase, target: f"{who} {phrase} [[{target}]].",
    st.sampled_from(NAMES),
    st.sampled_from(PHRASES),
    st.one_of(
        st.sampled_from(NAMES),
        # Case variants of a missing note share one placeholder, named the same whatever came
        # first; those of a note that comes and goes fall back to a placeholder when it goes.
        st.sampled_from(["Ghost", "ghost", "GHOST", "team/Bob", "Team/bob", "archive/Eve"]),
        # Relative links name another note when their note moves to another folder (or climb
        # out of the vault from the top), and share placeholders with the spellings above.
        st.sampled_from(["./Alice", "../team/Bob", "../ghost"]),
        # A link to a section or with a display text keeps them on its relationship.
        st.sampled_from(["Bob#Work", "Alice#^b1", "Carol|Caz", "ghost#Plan|the plan"]),
    ),
)
plain_lines = st.sampled_from(
    [
        "Some plain words.",
        "A #tag line.",
        "Mentions Alice by name.",
        "Bobby and Carol met; `Dave` in code is no mention.",
        "## A heading",
        "Another paragraph here.",
    ]
)
frontmatter = st.one_of(
    st.just(""),
    st.builds(
        lambda role, status, alias: (
            f"---\nrole: {role}\nstatus: {status}\naliases: [{alias}]\n---\n"
        ),
        st.sampled_from(["engineer", "manager"]),
        st.sampled_from(["active", "done"]),
        st.sampled_from(["Al", "Bobby", "C"]),
    ),
)
# One picture and one PDF linked in every form: each is one entity keyed by its file name, which
# comes and goes with the last note linking it, whatever folder the notes move to.
attachment_lines = st.sampled_from(
    [
        "![[photo.png|300]]",
        "See ![](attachments/Photo.PNG).",
        "[[../photo.png]] and ![](./my%20doc.pdf)",
        "Read ![[My Doc.pdf#page=3]].",
    ]
)
bodies = st.builds(
    lambda fm, lines: fm + "\n\n".join(lines) + "\n",
    frontmatter,
    st.lists(st.one_of(link_lines, plain_lines, attachment_lines), min_size=0, max_size=5),
)


class VaultMachine(RuleBasedStateMachine):
    """Random edits to a real folder, applied through the same calls the watcher and CLI use."""

    target: Neo4jTarget
    base_settings: Settings

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.dir = Path(tempfile.mkdtemp(prefix="knotwork-vault-"))
        self.files: dict[str, str] = {}
        self.core: Core = self.run(self._open())
        self.ingestor = Ingestor(self.core, root=self.dir, vault="inc", extract_enabled=False)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)

    async def _open(self) -> Core:
        self._ctx = open_core(self.base_settings)
        return await self._ctx.__aenter__()

    def _write(self, path: str, text: str) -> None:
        if self.files.get(path) == text:
            # Saving the same text is no edit: the graph keeps the mtime of the content it
            # holds, while a fresh ingest would read the newer one. Leave the file as it is.
            return
        (self.dir / path).parent.mkdir(parents=True, exist_ok=True)
        (self.dir / path).write_text(text, encoding="utf-8")
        self.files[path] = text

    @initialize()
    def clean(self) -> None:
        for vault in ("inc", "fresh"):
            self.run(self.core.store.drop_vault(vault))

    @rule(path=paths, text=bodies, via_sync=st.booleans())
    def create_or_edit(self, path: str, text: str, via_sync: bool) -> None:
        self._write(path, text)
        if via_sync:
            self.run(sync_vault(self.ingestor))
        else:
            self.run(self.ingestor.upsert_path(path))

    @precondition(lambda self: bool(self.files))
    @rule(data=st.data(), new=paths, via_sync=st.booleans())
    def rename(self, data: st.DataObject, new: str, via_sync: bool) -> None:
        old = data.draw(st.sampled_from(sorted(self.files)))
        if new in self.files:
            return
        text = self.files.pop(old)
        (self.dir / new).parent.mkdir(parents=True, exist_ok=True)
        (self.dir / old).rename(self.dir / new)
        self.files[new] = text
        if via_sync:
            self.run(sync_vault(self.ingestor))
        else:
            self.run(self.ingestor.rename(old, new))

    def _folders(self) -> list[str]:
        """The folders holding two notes or more (a folder's move is then a batch)."""
        held = [p.rpartition("/")[0] for p in self.files]
        return sorted({f for f in held if held.count(f) > 1})

    @precondition(lambda self: bool(self._folders()))
    @rule(data=st.data(), to=st.sampled_from(FOLDERS))
    def move_folder(self, data: st.DataObject, to: str) -> None:
        """A folder's notes moved together (those whose new path is free), written as the
        watcher writes a folder renamed: one batch of renames (a sync's moves: ``rename``)."""
        source = data.draw(st.sampled_from(self._folders()))
        moves: list[tuple[str, str]] = []
        for old in sorted(p for p in self.files if p.rpartition("/")[0] == source):
            new = to + old.rpartition("/")[2]
            if new not in self.files:
                (self.dir / new).parent.mkdir(parents=True, exist_ok=True)
                (self.dir / old).rename(self.dir / new)
                self.files[new] = self.files.pop(old)
                moves.append((old, new))
        if moves:
            self.run(self.ingestor.renames([(old, new, None) for old, new in moves]))

    @precondition(lambda self: bool(self.files))
    @rule(data=st.data(), via_sync=st.booleans())
    def delete(self, data: st.DataObject, via_sync: bool) -> None:
        path = data.draw(st.sampled_from(sorted(self.files)))
        (self.dir / path).unlink()
        del self.files[path]
        # A sync refuses to take an emptied folder's notes for deleted (an unmounted drive):
        # the last note goes as the watcher deletes it.
        if via_sync and self.files:
            self.run(sync_vault(self.ingestor))
        else:
            self.run(self.ingestor.delete(path))

    @precondition(lambda self: bool(self.files))
    @rule(data=st.data(), line=link_lines)
    def link_or_unlink(self, data: st.DataObject, line: str) -> None:
        path = data.draw(st.sampled_from(sorted(self.files)))
        text = self.files[path]
        self._write(path, text.replace(line, "") if line in text else text + line + "\n")
        self.run(self.ingestor.upsert_path(path))

    @invariant()
    def notes_match_the_folder(self) -> None:
        stored = self.run(stored_notes(self.core, "inc"))
        assert sorted(stored) == sorted(self.files)

    async def miscounted(self, vault: str) -> list[dict[str, Any]]:
        """Notes whose kept count of the notes mentioning them is not the count itself."""
        return await ad_hoc(
            self.core,
            "MATCH (n:Note {vault: $vault}) "
            "WITH n, coalesce(n.mentioned_by, 0) AS kept, COUNT { MATCH (x:Note)-[r:MENTIONS]->(n) "
            "WHERE r.extractor = 'mention' RETURN DISTINCT x } AS counted "
            "WHERE kept <> counted RETURN n.path AS path, kept, counted",
            {"vault": vault},
            write=False,
        )

    def mtimes(self, vault: str) -> list[tuple[str, float | None]]:
        rows = self.run(self.core.store.read(NOTE_MTIMES, vault=vault))
        return [(row["path"], row["mtime"]) for row in rows]

    def teardown(self) -> None:
        try:
            incremental = self.run(snapshot(self.core.store, "inc"))
            fresh = Ingestor(self.core, root=self.dir, vault="fresh", extract_enabled=False)
            # One batch for the whole vault, against the incremental side's batches of two.
            fresh.settings = self.core.settings.model_copy(update={"ingest_batch": 1000})
            self.run(sync_vault(fresh))
            rebuilt = self.run(snapshot(self.core.store, "fresh"))
            for part in incremental:
                assert incremental[part] == rebuilt[part], f"{part} differ"
            # Each note's latest revision lists what it asserts now (its history is true).
            assert self.run(stale_revisions(self.core, "inc")) == {}
            # The notes part holds each note's mentioned_by; on both sides it is the count.
            assert self.run(self.miscounted("inc")) == []
            # Placeholder names are in the nodes part; mtimes (also of renamed notes) here.
            assert self.mtimes("inc") == self.mtimes("fresh")
            # Each note's vector is its chunks' mean on both sides (none without chunks).
            assert self.run(stale_note_vectors(self.core, "inc")) == []
            assert self.run(stale_note_vectors(self.core, "fresh")) == []
        finally:
            self.run(self._ctx.__aexit__(None, None, None))
            self.loop.close()
            shutil.rmtree(self.dir, ignore_errors=True)


def test_incremental_graph_equals_fresh_ingest(
    core: Core, neo4j_target: Neo4jTarget, settings: Settings
) -> None:
    """100 random sequences; derandomized so CI runs the same sequences every time."""
    VaultMachine.target = neo4j_target
    # Syncs write two notes per transaction: mentions and links across batches are exercised.
    VaultMachine.base_settings = settings.model_copy(update={"ingest_batch": 2})
    run_state_machine_as_test(
        VaultMachine,
        settings=hsettings(
            max_examples=100,
            stateful_step_count=8,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )


pytestmark = pytest.mark.integration
