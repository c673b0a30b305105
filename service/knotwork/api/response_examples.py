"""The examples ``/openapi.json`` gives of the response bodies of ``/query`` and ``/retrieve``
(``api.schemas``)."""

from __future__ import annotations

from pydantic.config import JsonDict

_CITATION: JsonDict = {
    "chunk_id": "default:People/Alice.md:1",
    "path": "People/Alice.md",
    "heading": "Alice > Work",
    "line_start": 5,
    "line_end": 9,
    "score": 0.0328,
    "snippet": "Alice works with Bob on the graph database.",
}
_FACT: JsonDict = {
    "subject": "People/Alice.md",
    "predicate": "WORKS_WITH",
    "object": "People/Bob.md",
    "source": "People/Alice.md",
    "extractor": "wikilink",
    "confidence": 1.0,
    "line": 7,
    "chunk_id": "default:People/Alice.md:1",
}
_PATH: JsonDict = {
    "nodes": ["note:People/Alice.md", "note:People/Bob.md"],
    "relations": ["WORKS_WITH"],
    "chunk_id": "default:People/Bob.md:0",
}

QUERY_EXAMPLE: JsonDict = {
    "status": "ok",
    "answer": "Alice works with Bob [People/Alice.md#Alice > Work].",
    "citations": [_CITATION],
    "dropped_citations": ["[Nowhere.md#Fake]"],
    "facts": [_FACT],
    "paths": [_PATH],
    "timings": {"vector": 12.5, "fulltext": 4.1, "answer_ms": 2310.0},
    "warnings": [],
    "uncited": False,
    "evidence": [],
}
RETRIEVE_EXAMPLE: JsonDict = {
    "status": "ok",
    "citations": [{**_CITATION, "retrievers": {"vector": 0.91}}],
    "facts": [_FACT],
    "paths": [_PATH],
    "timings": {"vector": 12.5, "fulltext": 4.1},
    "warnings": [],
}
