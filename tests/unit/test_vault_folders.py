"""Whether a folder is another one than the vault was synced from: one rule (vault/folders.py),
which verify and the REST and MCP writes share, so the write path needs no verify module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from knotwork.graph.queries.writes import VaultFolderRow
from knotwork.vault.folders import led_elsewhere, other_than_recorded
from tests.unit import source_calls

FOLDER_CHECK = Path(__file__).resolve().parents[2] / "service/knotwork/serving/folder.py"
RECORDED = VaultFolderRow(folder="/data/vault", folder_id="64768:1234")


@pytest.mark.parametrize(
    ("path", "ident"),
    [
        ("/data/vault", "64768:1234"),  # the folder recorded
        ("/data/vault", "64768:9999"),  # made again at its path
        ("/vault", "64768:1234"),  # mounted elsewhere (compose's /vault), or moved whole
        ("/data/vault", None),  # its path; its identity cannot be said
    ],
)
def test_the_recorded_folder_by_path_or_identity_is_the_vaults(
    path: str, ident: str | None
) -> None:
    assert other_than_recorded(path, ident, RECORDED) is None


@pytest.mark.parametrize("ident", ["64768:9999", None])
def test_another_path_and_identity_is_another_folder(ident: str | None) -> None:
    assert other_than_recorded("/data/other", ident, RECORDED) == "/data/vault"


def test_none_recorded_any_folder_is_the_vaults() -> None:
    none = VaultFolderRow(folder=None, folder_id=None)
    assert other_than_recorded("/anywhere", "1:2", none) is None


def test_the_write_path_does_not_import_verify() -> None:
    """The REST and MCP writes' folder check takes the rule from vault/folders.py, never from
    check/ (verify and, through it, the sync)."""
    imported = [
        node.module
        for node in ast.walk(source_calls.tree(FOLDER_CHECK))
        if isinstance(node, ast.ImportFrom) and node.module
    ]
    assert "knotwork.vault.folders" in imported
    assert [m for m in imported if m.startswith("knotwork.check")] == []


def test_a_vault_link_is_led_elsewhere_only_to_another_folder_that_exists(tmp_path: Path) -> None:
    """Re-pointed to a folder not made yet, the watcher goes on following the old one: so
    does a sync, which keeps nothing for it (else it would keep and rescan every second)."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    link = tmp_path / "vault"
    link.symlink_to(one)
    assert not led_elsewhere(link, one)
    assert not led_elsewhere(one, one)
    link.unlink()
    link.symlink_to(two)  # not made yet
    assert not led_elsewhere(link, one)
    two.mkdir()
    assert led_elsewhere(link, one)
