"""The graph's schema version only goes up: a graph written by a newer Knotwork is refused,
never written down to this version's schema."""

from __future__ import annotations

import pytest

from knotwork import __version__
from knotwork.core import Core
from knotwork.errors import SchemaError
from knotwork.graph import schema
from tests.integration.conftest import ad_hoc

NEWER = schema.SCHEMA_VERSION + 1


async def _newer(core: Core) -> None:
    await ad_hoc(core, "MATCH (m:Manifest) SET m.schema_version = $v", {"v": NEWER}, write=True)


async def test_a_graph_of_a_newer_schema_is_refused_and_kept(core: Core) -> None:
    await _newer(core)
    with pytest.raises(SchemaError, match=rf"newer Knotwork \(schema {NEWER}\); upgrade"):
        await core.ensure_ready()
    manifest = await core.store.get_manifest()
    assert manifest is not None and manifest["schema_version"] == NEWER


async def test_the_manifest_written_never_lowers_the_schema_version(core: Core) -> None:
    """A newer version writing between this one's read and its write keeps its version."""
    await _newer(core)
    written = await core.store.put_manifest(
        schema_version=schema.SCHEMA_VERSION,
        embed_model=core.settings.embed_model,
        embed_provider=core.settings.embed_provider,
        embed_dimension=core.settings.embed_dimension,
        knotwork_version=__version__,
    )
    assert written["schema_version"] == NEWER


async def test_an_older_schema_is_brought_up_to_this_one(core: Core) -> None:
    await ad_hoc(core, "MATCH (m:Manifest) SET m.schema_version = 1", write=True)
    manifest = await core.ensure_ready()
    assert manifest["schema_version"] == schema.SCHEMA_VERSION


async def test_reembed_refuses_a_graph_of_a_newer_schema(core: Core) -> None:
    """Nothing is re-embedded nor reset: the entities keep their vectors and the manifest its
    version."""
    await _newer(core)
    await ad_hoc(
        core, "CREATE (:Entity {vault: 'v', key: 'k', embedding_state: 'done'})", write=True
    )

    async def embed(texts: list[str]) -> list[list[float] | None]:
        raise AssertionError("a newer graph's chunks were sent to the model")

    with pytest.raises(SchemaError, match=rf"newer Knotwork \(schema {NEWER}\)"):
        await schema.reembed(core.store, core.settings, embed)
    [row] = await ad_hoc(core, "MATCH (e:Entity {key: 'k'}) RETURN e.embedding_state AS state")
    assert row["state"] == "done"
    manifest = await core.store.get_manifest()
    assert manifest is not None and manifest["schema_version"] == NEWER
