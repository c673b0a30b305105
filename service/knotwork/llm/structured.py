"""Structured output through LlamaIndex's portable API, whatever the provider.

``LLM.astructured_predict`` sends the pydantic model's JSON schema the way the provider takes
it — Ollama's ``format``, an OpenAI-compatible server's ``response_format`` — and validates the
answer against the model. What it raises for an answer that is not what was asked (not JSON,
not an object, a field out of bounds) is told apart here from a call that failed, and said in
a short line that is recorded on the chunk or returned as a warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ValidationError

if TYPE_CHECKING:
    from llama_index.core.llms import LLM, ChatMessage

M = TypeVar("M", bound=BaseModel)


async def predict(llm: LLM, output_cls: type[M], messages: list[ChatMessage]) -> M:
    """``messages`` answered as an ``output_cls``. ValueError (pydantic's ValidationError
    included) when the answer does not fit; anything else the client raises when the call
    failed."""
    from llama_index.core.llms import ChatMessage
    from llama_index.core.prompts import ChatPromptTemplate

    # Each message is a template variable, filled with its text in one pass: braces or a
    # `{name}` in a note are never read as template syntax.
    names = [f"m{i}" for i in range(len(messages))]
    template = ChatPromptTemplate(
        message_templates=[
            ChatMessage(role=m.role, content="{" + name + "}")
            for m, name in zip(messages, names, strict=True)
        ]
    )
    values = {name: m.content or "" for m, name in zip(messages, names, strict=True)}
    result = await llm.astructured_predict(output_cls, template, **values)
    if not isinstance(result, output_cls):  # a provider's own program may hand back a dict
        result = output_cls.model_validate(result)
    return result


def describe(exc: ValueError) -> str:
    """What is wrong with an answer, in one line: ``not JSON (…)``, ``expected a JSON
    object …`` or ``schema mismatch at <field>: …``."""
    if not isinstance(exc, ValidationError):
        return str(exc)[:300] or type(exc).__name__
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        return f"not JSON ({first['msg'].removeprefix('Invalid JSON: ')})"
    if first["type"] == "model_type" and not first["loc"]:
        return f"expected a JSON object, got {type(first['input']).__name__}"
    where = ".".join(map(str, first["loc"])) or "(top)"
    return f"schema mismatch at {where}: {first['msg']}"
