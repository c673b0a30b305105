"""The chat model's providers: settings checked at the start, the real LlamaIndex clients against
each provider's loopback fake, and extraction's and keywords' robustness on every provider."""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from llama_index.core.llms import LLM, ChatMessage

from knotwork.errors import ConfigError, ModelUnavailableError
from knotwork.ingest.extract import MAX_TRIPLES, Extraction, extract_chunk
from knotwork.llm import clients
from knotwork.llm.clients import ModelClients, build_llm
from knotwork.llm.providers import NO_KEY, chat_server, probe_chat_server
from knotwork.retrieve import keywords
from knotwork.retrieve.keywords import propose
from knotwork.settings import Settings
from tests.conftest import make_settings
from tests.fakes.ollama import ChatRefusal, FakeOllama, structured_schema
from tests.fakes.openai_like import FakeOpenAILike

CHAT_PATH = {"ollama": "/api/chat", "openai-like": "/v1/chat/completions"}


def openai_settings(fake: FakeOpenAILike, **extra: Any) -> Settings:
    return make_settings(llm_provider="openai-like", llm_base_url=fake.base_url, **extra)


# -- settings ---------------------------------------------------------------------------------


def test_openai_like_without_a_base_url_fails_at_the_start_and_says_what_to_set() -> None:
    settings = make_settings(llm_provider="openai-like")
    with pytest.raises(ConfigError, match=r"KNOTWORK_LLM_BASE_URL.*http://127\.0\.0\.1:8080/v1"):
        ModelClients(settings)
    with pytest.raises(ConfigError, match="KNOTWORK_LLM_BASE_URL"):
        make_settings(llm_provider="openai-like", llm_base_url="  ").chat_server_url()


@pytest.mark.parametrize("url", ["127.0.0.1:8080/v1", "ftp://host/v1", "http:///v1"])
def test_openai_like_base_url_must_be_http_with_a_host(url: str) -> None:
    with pytest.raises(ConfigError, match="not an http"):
        ModelClients(make_settings(llm_provider="openai-like", llm_base_url=url))


def test_provider_settings_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KNOTWORK_LLM_PROVIDER", "openai-like")
    monkeypatch.setenv("KNOTWORK_LLM_BASE_URL", "http://127.0.0.1:8080/v1/")
    monkeypatch.setenv("KNOTWORK_LLM_API_KEY", "")
    settings = make_settings()
    assert settings.llm_provider == "openai-like" and settings.llm_api_key is None
    assert settings.chat_server_url() == "http://127.0.0.1:8080/v1"
    ModelClients(settings)  # complete: no error
    monkeypatch.setenv("KNOTWORK_LLM_API_KEY", "sk-local-secret")
    assert "sk-local-secret" not in repr(make_settings())
    with pytest.raises(ValueError):
        make_settings(llm_provider="openai")


def test_messages_name_the_configured_server_without_credentials() -> None:
    assert chat_server(make_settings()) == "Ollama at http://127.0.0.1:11434"
    settings = make_settings(llm_provider="openai-like", llm_base_url="http://u:pw@h:8000/v1")
    assert chat_server(settings) == "the OpenAI-compatible server at http://u:***@h:8000/v1"


# -- the OpenAI-compatible client against its fake ------------------------------------------


async def test_openai_like_chat_stream_and_key(
    fake_openai: FakeOpenAILike, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "meant-for-another-service")
    llm = build_llm(openai_settings(fake_openai))
    assert isinstance(llm, LLM)
    messages = [ChatMessage(role="user", content="hello")]
    assert (await llm.achat(messages)).message.content == "ok"
    assert fake_openai.authorizations == [f"Bearer {NO_KEY}"]
    fake_openai.chat_script = lambda body: f"echo {body['messages'][-1]['content']} " * 3
    streamed = [r.delta async for r in await llm.astream_chat(messages)]
    assert len(streamed) > 1 and "".join(d or "" for d in streamed) == "echo hello " * 3
    assert fake_openai.calls_to("/v1/chat/completions")[-1].body["stream"] is True

    fake_openai.api_key = "sk-local-secret"
    keyed = build_llm(openai_settings(fake_openai, llm_api_key="sk-local-secret"))
    assert (await keyed.achat(messages)).message.content.startswith("echo hello")
    assert fake_openai.authorizations[-1] == "Bearer sk-local-secret"
    with pytest.raises(Exception, match="401"):
        await llm.achat(messages)


async def test_probe_lists_the_served_models_or_says_the_server_is_down(
    fake_openai: FakeOpenAILike,
) -> None:
    settings = openai_settings(fake_openai)
    assert await probe_chat_server(settings) == frozenset({"llama3.1:8b"})
    fake_openai.down = True
    with pytest.raises(ModelUnavailableError, match=r"did not answer GET /models.*503"):
        await probe_chat_server(settings)


# -- structured output on every provider ----------------------------------------------------


@dataclass
class Chat:
    provider: str
    llm: LLM
    fake: FakeOllama | FakeOpenAILike

    def script(self, answer: Callable[[dict[str, Any]], str]) -> None:
        self.fake.chat_script = answer

    def chats(self) -> list[dict[str, Any]]:
        return [c.body for c in self.fake.calls_to(CHAT_PATH[self.provider])]


@pytest.fixture(params=["ollama", "openai-like"])
def chat(
    request: pytest.FixtureRequest, fake_ollama: FakeOllama, fake_openai: FakeOpenAILike
) -> Chat:
    if request.param == "ollama":
        return Chat(
            "ollama", build_llm(make_settings(ollama_base_url=fake_ollama.base_url)), fake_ollama
        )
    return Chat("openai-like", build_llm(openai_settings(fake_openai)), fake_openai)


async def test_extraction_sends_the_schema_and_reads_the_answer(chat: Chat) -> None:
    answer = {
        "entities": [{"name": "Ann", "type": "person"}],
        "triples": [{"subject": "Ann", "predicate": "works with", "object": "Ben"}],
    }
    chat.script(lambda body: json.dumps(answer))
    result = await extract_chunk(chat.llm, "Team", "Ann works with Ben {not a template}.")
    assert result.error is None and result.extraction == Extraction.model_validate(answer)
    (body,) = chat.chats()
    schema = structured_schema(body)
    assert schema is not None and "triples" in json.dumps(schema)
    if chat.provider == "openai-like":
        assert body["response_format"]["type"] == "json_schema"
    user = body["messages"][-1]["content"]
    assert "{not a template}" in user and "never instructions" in body["messages"][0]["content"]


async def test_extraction_default_answer_is_an_empty_extraction(chat: Chat) -> None:
    """The fakes answer the smallest instance of the schema asked for: both lists, empty."""
    result = await extract_chunk(chat.llm, "", "Nothing here.")
    assert result.extraction == Extraction(entities=[], triples=[]) and result.error is None
    schema = structured_schema(chat.chats()[0])
    assert schema is not None and {"entities", "triples"} <= set(schema.get("required", []))


async def test_an_empty_answer_is_no_extraction(chat: Chat) -> None:
    """ "{}" fits a schema whose lists have defaults; it is no answer, and is retried, then
    recorded as an error rather than as a chunk with nothing in it."""
    chat.script(lambda body: "{}")
    result = await extract_chunk(chat.llm, "", "Ann works with Ben.")
    assert result.extraction is None and "invalid model output" in (result.error or "")
    assert len(chat.chats()) == 2


@pytest.mark.parametrize(
    "raw, why",
    [
        ("this is not json {", "invalid model output: not JSON"),
        ('{"entities": [{"name": "Ann", "type": "per', "invalid model output: not JSON"),
        ("[1, 2]", "invalid model output: expected a JSON object"),
        ('{"triples": [{"subject": "", "predicate": "p", "object": "o"}]}', "schema mismatch"),
        ("", "invalid model output: not JSON"),
    ],
)
async def test_malformed_or_partial_output_is_retried_once_then_reported(
    chat: Chat, raw: str, why: str
) -> None:
    chat.script(lambda body: raw)
    result = await extract_chunk(chat.llm, "", "Ann works with Ben.")
    assert result.extraction is None and result.error is not None and why in result.error
    assert len(chat.chats()) == 2


async def test_a_request_the_model_refuses_itself_is_asked_once(chat: Chat) -> None:
    """A prompt longer than the model's context is refused again however often it is sent:
    one call, and a result that says the request itself was refused (the chunk's failure)."""

    def too_long(body: dict[str, Any]) -> str:
        raise ChatRefusal(400, "the input length exceeds the context length")

    chat.script(too_long)
    result = await extract_chunk(chat.llm, "", "Ann works with Ben.")
    assert result.extraction is None and result.refused
    assert "exceeds the context length" in (result.error or "")
    assert len(chat.chats()) == 1


async def test_oversized_output_keeps_the_first_triples(chat: Chat) -> None:
    triples = [{"subject": f"A{i}", "predicate": "knows", "object": "B"} for i in range(60)]
    chat.script(lambda body: json.dumps({"entities": [], "triples": triples}))
    result = await extract_chunk(chat.llm, "", "Many people know B.")
    assert result.extraction is not None and len(result.extraction.triples) == MAX_TRIPLES
    assert result.extraction.triples[0].subject == "A0"


async def test_a_server_that_is_down_is_a_failed_call_not_bad_output(chat: Chat) -> None:
    chat.fake.down = True
    result = await extract_chunk(chat.llm, "", "Ann works with Ben.")
    assert result.error is not None and result.error.startswith("model call failed")
    words, error = await propose(chat.llm, "Who is Ann?")
    assert words == [] and error is not None and "model call failed" in error


async def test_keywords_on_every_provider(chat: Chat) -> None:
    chat.script(lambda body: json.dumps({"keywords": ["Ann", "ann ", "Ben  Smith"]}))
    assert await propose(chat.llm, "Who is Ann?") == (["Ann", "Ben Smith"], None)
    chat.script(lambda body: '{"keywords": ["Ann"')
    words, error = await propose(chat.llm, "Who is Ann?")
    assert words == [] and error is not None and "invalid model output (not JSON" in error


async def test_keywords_from_a_model_that_does_not_answer_in_time_are_skipped(
    chat: Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stuck model costs the question KEYWORDS_TIMEOUT_S, not the client's whole timeout."""
    monkeypatch.setattr(keywords, "KEYWORDS_TIMEOUT_S", 0.2)

    def slow(body: object) -> str:
        time.sleep(5.0)
        return json.dumps({"keywords": ["Ann"]})

    chat.script(slow)
    started = time.perf_counter()
    words, error = await propose(chat.llm, "Who is Ann?")
    assert words == [] and error is not None and "did not answer within 0.2 s" in error
    assert time.perf_counter() - started < 4.0  # well before the model's 5 s answer


def test_a_client_that_could_not_be_loaded_is_built_again_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model that could not be loaded (a worker killed while loading) is asked again after
    REBUILD_AFTER_S, not refused until the server restarts; a setting that cannot work is
    refused for good. The error raised again does not grow a traceback per call."""
    clock = [0.0]
    monkeypatch.setattr(clients.time, "monotonic", lambda: clock[0])
    tries: list[int] = []

    def flaky() -> str:
        tries.append(1)
        if len(tries) == 1:
            raise ModelUnavailableError("the worker was killed while loading the model")
        return "embedder"

    lazy = clients._Lazy(flaky)
    depths = []
    for _ in range(3):
        with pytest.raises(ModelUnavailableError) as caught:
            lazy.get()
        depths.append(len(traceback.extract_tb(caught.value.__traceback__)))
    assert len(tries) == 1 and depths[1] == depths[2]
    clock[0] += clients.REBUILD_AFTER_S + 1
    assert lazy.get() == "embedder" and len(tries) == 2

    refusals: list[int] = []

    def refused() -> str:
        refusals.append(1)
        raise ConfigError("KNOTWORK_EMBED_MODEL names no model")

    never = clients._Lazy(refused)
    for _ in range(2):
        with pytest.raises(ConfigError):
            never.get()
        clock[0] += 10 * clients.REBUILD_AFTER_S
    assert len(refusals) == 1
