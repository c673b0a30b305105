"""The chat model's providers: which LlamaIndex ``LLM`` answers, and whether its server is up.

``KNOTWORK_LLM_PROVIDER`` picks Ollama (the default) or any server that speaks the OpenAI
chat-completions API (llama.cpp's llama-server, vLLM, LM Studio). Everything past this module
uses only LlamaIndex's ``LLM`` interface: ``achat`` and ``astream_chat`` for answers,
``astructured_predict`` (knotwork.llm.structured) for extraction and keywords, so a provider is
added here and nowhere else. LlamaIndex is imported only when a client is built (knotwork.llm).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from knotwork.errors import KnotworkError, ModelUnavailableError
from knotwork.redact import described, redact
from knotwork.settings import Settings

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

# Sent when no key is set: the OpenAI client insists on one, and an OPENAI_API_KEY in the
# environment (meant for another service) must never reach a local server.
NO_KEY = "no-key"
PROBE_TIMEOUT_S = 5.0


def check_llm(settings: Settings) -> None:
    """What can be known about the chat model's settings without a call: ConfigError for a
    provider that lacks what it needs, so a command fails at its start."""
    if settings.llm_provider == "openai-like":
        settings.chat_server_url()


def api_key(settings: Settings) -> str:
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else ""
    return key or NO_KEY


def build_llm(settings: Settings) -> LLM:
    """The configured provider's client, deterministic (temperature 0). Called by
    knotwork.llm with its import lock held."""
    if settings.llm_provider == "openai-like":
        from llama_index.llms.openai_like import OpenAILike

        server: LLM = OpenAILike(  # untyped package: name the type callers rely on
            model=settings.llm_model,
            api_base=settings.chat_server_url(),
            api_key=api_key(settings),
            context_window=settings.llm_context_window,
            is_chat_model=True,
            is_function_calling_model=False,
            # Structured output as a JSON schema in `response_format`, which llama-server,
            # vLLM and LM Studio all enforce with a grammar.
            should_use_structured_outputs=True,
            temperature=0.0,
            timeout=settings.ollama_timeout_s,
            # Knotwork retries and backs off itself (knotwork.ingest.modelcalls); the client's own
            # retries would only make a server that is down slower to report.
            max_retries=0,
            # A client per call: a pooled one would hold connections of the event loop that
            # first used it, and a Core outlives loops (the CLI, TestClient, the retriever).
            reuse_client=False,
        )
        return server
    from llama_index.llms.ollama import Ollama

    ollama: LLM = Ollama(
        model=settings.llm_model,
        base_url=settings.ollama_base_url,
        request_timeout=settings.ollama_timeout_s,
        context_window=settings.llm_context_window,
        temperature=0.0,
    )
    return ollama


def chat_server(settings: Settings) -> str:
    """Where the chat model answers, for messages: ``Ollama at URL`` or the OpenAI-compatible
    server's URL, credentials masked."""
    if settings.llm_provider == "openai-like":
        return f"the OpenAI-compatible server at {redact(settings.llm_base_url or '(unset)')}"
    return f"Ollama at {redact(settings.ollama_base_url)}"


async def probe_chat_server(
    settings: Settings, timeout_s: float = PROBE_TIMEOUT_S
) -> frozenset[str]:
    """The ids of the models an OpenAI-compatible server lists (``GET /models``);
    ModelUnavailableError when it does not answer, or answers with an error."""
    import httpx

    url = settings.chat_server_url()
    headers = {"Authorization": f"Bearer {api_key(settings)}"}
    try:
        async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as client:
            listed = (await client.get(f"{url}/models")).raise_for_status().json()
        return frozenset(str(m["id"]) for m in listed["data"])
    except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
        raise ModelUnavailableError(
            f"the OpenAI-compatible server at {redact(url)} did not answer GET /models "
            f"({described(exc, 300)})"
        ) from exc


class ChatServerReport(BaseModel):
    """The OpenAI-compatible server of ``KNOTWORK_LLM_PROVIDER=openai-like``."""

    ok: bool  # it answers and lists the chat model
    base_url: str
    model: str
    reachable: bool = False
    served: list[str] = Field(default_factory=list)  # the model ids it lists
    error: str | None = None


async def chat_server_report(settings: Settings) -> ChatServerReport | None:
    """The OpenAI-compatible server's part of the health report; None with another provider."""
    if settings.llm_provider != "openai-like":
        return None
    report = ChatServerReport(
        ok=False, base_url=redact(settings.chat_server_url()), model=settings.llm_model
    )
    try:
        served = await probe_chat_server(settings)
    except KnotworkError as exc:
        report.error = redact(str(exc))
        return report
    report.reachable, report.served = True, sorted(served)
    report.ok = settings.llm_model in served
    if not report.ok:
        report.error = f"model {settings.llm_model} is not among the models the server lists"
    return report
