"""What an answer from POST /query is checked by, on the real Neo4j with the fake Ollama: one
that cites none of the notes is flagged with the evidence it was given, streamed or not, as
MCP's ``ask`` flags it; a fact of a note's frontmatter is cited to the line that states it."""

from __future__ import annotations

import re

from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.test_answer import Api, api, ask, labels, model, sse_query  # noqa: F401

QUESTION = "Who works with Bob on the graph database?"
ORCHARD = (
    "---\naliases: [Project Orchard]\ntags: [project]\nstatus: paused\n---\n# Orchard\n\n"
    "Orchard is a recommendation platform. The lead is [[Hiro Tanaka]].\n\n"
    "## Deadline\nThe Orchard deadline is 2026-06-30.\n"
)


async def test_an_answer_citing_none_of_the_notes_comes_with_its_evidence(
    api: Api,  # noqa: F811 (the fixture)
    fake_ollama: FakeOllama,
) -> None:
    fake_ollama.chat_script = model(lambda _: "Many people work with Bob on the graph database.")
    body = await ask(api, question=QUESTION, mode="fast")
    events = await sse_query(api, json={"question": QUESTION, "mode": "fast", "stream": True})
    kind, done = events[-1]
    assert kind == "done"
    for answered in (body, done):
        assert answered["status"] == "ok" and answered["citations"] == [], answered
        assert answered["uncited"] is True
        evidence = answered["evidence"]
        assert evidence[0]["path"] == "People/Alice.md", evidence
        assert "works with Bob" in evidence[0]["snippet"] and evidence[0]["retrievers"]
        assert all(e["chunk_id"] and len(e["snippet"]) <= 300 for e in evidence)
    assert body["evidence"] == done["evidence"]
    # An answer that cites has nothing more: its citations are what it is checked by.
    fake_ollama.chat_script = model(
        lambda prompt: f"Alice works with Bob {labels(prompt)['People/Alice.md']}."
    )
    cited = await ask(api, question=QUESTION, mode="fast")
    assert cited["citations"] and cited["uncited"] is False and cited["evidence"] == []
    schema = (await api.client.get("/openapi.json")).json()["components"]["schemas"]
    declared = schema["QueryResponse"]
    assert {"uncited", "evidence"} <= set(declared["properties"]) & set(declared["required"])


async def test_a_frontmatter_fact_is_cited_to_the_line_that_states_it(
    api: Api,  # noqa: F811 (the fixture)
    fake_ollama: FakeOllama,
) -> None:
    put(api.vault, "projects/Orchard.md", ORCHARD)
    assert (await api.client.post("/sync")).status_code == 200

    def from_the_fact(prompt: str) -> str:
        number = re.search(r"^Orchard \| status \| paused \| (\[S\d+\])$", prompt, re.M)
        assert number, prompt
        return f"Orchard is paused {number.group(1)}."

    fake_ollama.chat_script = model(from_the_fact)
    question = {"question": "Is the Orchard project paused?", "mode": "fast"}
    body = await ask(api, **question)
    events = await sse_query(api, json={**question, "stream": True})
    lines = ORCHARD.splitlines()
    for answered in (body, events[-1][1]):
        assert answered["status"] == "ok", answered
        assert answered["answer"] == "Orchard is paused [projects/Orchard.md]."
        [cited] = answered["citations"]
        assert cited["path"] == "projects/Orchard.md" and cited["chunk_id"] is None
        assert (cited["line_start"], cited["line_end"]) == (4, 4)
        held = "\n".join(lines[cited["line_start"] - 1 : cited["line_end"]])
        assert "paused" in held and cited["snippet"] == "status: paused"
        assert answered["uncited"] is False
