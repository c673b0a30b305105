"""Query parameters as the store hands them to the driver: the same bytes on the wire, and a
debug line that does not hold them."""

from __future__ import annotations

import io
from typing import Any

import pytest
from neo4j._codec.packstream.v1 import Packer

from knotwork.graph.store import Rows, unlogged


def packed(value: Any, *, rust: bool) -> bytes:
    out = io.BytesIO()
    packer = Packer(out)
    hooks = packer._inject_hooks()
    if rust:
        packer.pack(value)
    else:
        packer._py_pack(value, hooks)
    return out.getvalue()


def batch() -> dict[str, Any]:
    chunks = [
        {"id": f"c{i}", "text": "word " * 200, "embedding": ",".join(["0.123456789"] * 768)}
        for i in range(50)
    ]
    return {"vault": "v", "chunks": chunks, "paths": ["a.md", "b.md"], "k": 3, "none": None}


@pytest.mark.parametrize("rust", [True, False])
def test_lists_pack_to_the_same_bytes(rust: bool) -> None:
    params = batch()
    assert packed(unlogged(params), rust=rust) == packed(params, rust=rust)


def test_a_batch_is_named_by_its_length_in_the_driver_debug_line() -> None:
    params = batch()
    quiet = unlogged(params)
    # The driver formats " ".join(map(repr, fields)) for every RUN; a plain batch's repr is
    # the whole batch (here over 500 kB), the store's is a few words per list.
    assert len(repr(params)) > 500_000
    assert len(repr(quiet)) < 200
    assert repr(quiet["chunks"]) == "<50 rows>"
    assert quiet == params and isinstance(quiet["chunks"], Rows)
    assert quiet["vault"] == "v" and quiet["k"] == 3 and quiet["none"] is None
