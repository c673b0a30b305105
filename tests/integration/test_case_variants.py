"""Notes whose paths differ only by letter case, already on disk: links resolve to one of them
by a documented, stable rule (the path that sorts first), whatever order they were ingested in,
and ingest warns naming both."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import snapshot, verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import put


async def link_targets(core: Core) -> list[str]:
    facts = (await snapshot(core.store, "t"))["facts"]
    return [line.split("|")[3] for line in facts if line.startswith("Bob.md|WORKS_WITH|")]


async def test_links_to_case_variants_resolve_by_a_stable_rule(
    ingestor: Ingestor, vault: Path, core: Core
) -> None:
    put(vault, "People/alice.md", "# alice, lower case\n")
    put(vault, "Bob.md", "Bob works with [[Alice]] and [[people/ALICE]].\n")
    first = await sync_vault(ingestor)
    assert first.warnings == []
    assert await link_targets(core) == ["note:People/alice.md"] * 2
    # The capitalised variant appears after: it sorts first ('A' < 'a'), so it takes the links,
    # as a fresh ingest of the folder would give them.
    put(vault, "People/Alice.md", "# Alice, capitalised\n")
    second = await sync_vault(ingestor)
    [warning] = second.warnings
    assert "People/Alice.md and People/alice.md differ only in letter case" in warning
    assert "resolves to People/Alice.md" in warning
    assert await link_targets(core) == ["note:People/Alice.md"] * 2
    assert await verify_vault(ingestor) == []
    # Without it, the links fall back to the other variant.
    (vault / "People/Alice.md").unlink()
    third = await sync_vault(ingestor)
    assert third.deleted == 1 and third.warnings == []
    assert await link_targets(core) == ["note:People/alice.md"] * 2
    assert await verify_vault(ingestor) == []
