"""schemathesis against the API's own OpenAPI schema, on a real server over the real Neo4j and
the fake Ollama: positive and negative examples for every operation, with and without the key.
Not one response may be a 5xx, and every response must match the schema: status code, media
type and body.

``KNOTWORK_TEST_FUZZ_EXAMPLES`` bounds the examples per operation and mode (default 60, about
a minute for both key modes on two shared cores; Hypothesis stops early on an operation with
fewer distinct inputs, such as ``GET /stats``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Unsatisfiable
from pydantic import SecretStr
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from knotwork.api import create_app
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget
from tests.integration.server import free_port, serving

EXAMPLES = int(os.environ.get("KNOTWORK_TEST_FUZZ_EXAMPLES", "60"))
KEY = "f" * 24
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@schemathesis.serializer("text/markdown")
def _markdown(ctx: Any, value: Any) -> bytes:
    """A note as sent: text as UTF-8 (lone surrogates kept, as a broken client would send
    them); a negative example that is not text, as its JSON."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return json.dumps(value).encode()


@pytest.mark.parametrize("keyed", [True, False], ids=["with-key", "without-key"])
def test_no_operation_answers_5xx_or_off_schema(
    settings: Settings, vault: Path, empty_db: Neo4jTarget, keyed: bool
) -> None:
    (vault / "Alice.md").write_text("# Alice\n\nAlice works with [[Bob]] on the graph.\n")
    port = free_port()
    api = settings.model_copy(
        update={
            "vault_path": vault,
            "extract": False,
            "api_port": port,
            "api_key": SecretStr(KEY),
            "max_note_bytes": 20_000,
        }
    )
    app = create_app(api)
    headers = {"X-API-Key": KEY} if keyed else {}
    with serving(app, port) as base:
        assert httpx.post(f"{base}/sync", headers={"X-API-Key": KEY}, timeout=60).is_success
        schema = schemathesis.openapi.from_dict(
            httpx.get(f"{base}/openapi.json", headers={"X-API-Key": KEY}).json()
        )
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) == 9
        modes = (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE)
        for operation in operations:
            for mode in modes:

                @hypothesis_settings(
                    max_examples=EXAMPLES,
                    deadline=None,
                    derandomize=True,
                    database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )
                @given(case=operation.as_strategy(generation_mode=mode))
                def exercise(case: schemathesis.Case) -> None:
                    case.call_and_validate(base_url=base, headers=headers, checks=CHECKS)

                try:
                    exercise()
                except Unsatisfiable:
                    # An operation without inputs has nothing to make invalid.
                    if mode is not schemathesis.GenerationMode.NEGATIVE:
                        raise
