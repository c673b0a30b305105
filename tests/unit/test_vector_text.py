"""An embedding travels to chunks_write.cypher as decimal text that Neo4j parses back to the
same float32 the vector index stores."""

from __future__ import annotations

import random
import struct

from knotwork.ingest.draft import vector_text


def _float32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


def test_vector_text_parses_back_to_the_same_float32_values() -> None:
    rng = random.Random(11)
    vector = [_float32(rng.gauss(0.0, 1.0) * 10 ** rng.randint(-30, 30)) for _ in range(768)]
    vector += [0.0, -0.0, _float32(1e-45), _float32(3.4e38)]
    text = vector_text(vector)
    assert text is not None
    parsed = [_float32(float(x)) for x in text.split(",")]
    assert parsed == vector
    assert text == ",".join(f"{x:.9g}" for x in vector)


def test_vector_text_of_no_vector_and_of_other_dimensions() -> None:
    assert vector_text(None) is None
    assert vector_text([]) == ""
    assert vector_text([0.5]) == "0.5"
    assert vector_text([0.25, -1.0, 3.0]) == "0.25,-1,3"
