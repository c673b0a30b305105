"""What `knotwork reembed` says of the chunks whose text the new model refused alone: counted
with their notes, a line a vault, the configured vault's first, another vault's with the
setting its `knotwork retry` needs."""

from __future__ import annotations

from collections import Counter

from knotwork.cli.printed import reembed_refused


def test_one_chunk_is_said_in_the_singular() -> None:
    said = reembed_refused({"default": Counter({"Bad.md": 1})}, "all-minilm", "default")
    assert said == [
        "1 chunk of 1 note (Bad.md) was refused by all-minilm and waits for `knotwork retry`"
    ]


def test_each_vault_has_its_line_and_another_vault_names_its_setting() -> None:
    refused = {
        "work": Counter({"W.md": 2}),
        "default": Counter({"d.md": 1, "b.md": 1, "c.md": 1, "a.md": 2}),
    }
    assert reembed_refused(refused, "m", "default") == [
        "5 chunks of 4 notes (a.md, b.md, c.md and 1 more) were refused by m and wait for "
        "`knotwork retry`",
        "2 chunks of 1 note (W.md) were refused by m and wait for `knotwork retry` with "
        "KNOTWORK_VAULT_NAME=work",
    ]
