"""The package layout follows the data flow: no module imports from a later stage.

The stages, in the order data moves through them, are listed in ``STAGES``; the README's
architecture section lists the same packages in the same order. A module may import from its
own stage and any earlier one. Lazy imports inside functions count too: they are dependencies
all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.unit import source_calls

PACKAGE = Path(__file__).resolve().parents[2] / "service" / "knotwork"

# Stage of each top-level name under knotwork/, in flow order. Modules that every stage uses
# (settings, errors, the data shapes) come first; the entry points last.
STAGES: list[set[str]] = [
    {
        "__init__",
        "settings",
        "setting_types",
        "unknown_settings",
        "errors",
        "redact",
        "models",
        "model_names",
        "background",
        "outage",
        "limits",
        "plural",
    },
    {"text"},
    {"graph"},
    {"vault"},
    {"llm"},
    {"core"},
    {"ingest"},
    {"retrieve"},
    {"answer"},
    {"watch"},
    {"eval"},
    {"check"},
    {"serving"},
    {"api", "cli", "mcp", "llamaindex"},
]
# Apart from the flow: tooling only the command line starts.
APART = {"local_neo4j"}
RANK = {name: i for i, names in enumerate(STAGES) for name in names}


def _top(module: str) -> str:
    """The top-level name under knotwork/ of a dotted module path ("knotwork.ingest.sync")."""
    return module.split(".")[1] if module.count(".") else "__init__"


def _is_module(name: str) -> bool:
    return (PACKAGE / f"{name}.py").is_file() or (PACKAGE / name / "__init__.py").is_file()


def _imports(path: Path) -> set[str]:
    """Every ``knotwork…`` module a file imports, at module level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(source_calls.tree(path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "knotwork":  # a module of the package, or a name in its __init__
                found.update(
                    f"knotwork.{a.name}" if _is_module(a.name) else "knotwork" for a in node.names
                )
            elif node.module.startswith("knotwork."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("knotwork."))
    return found


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        out.append(("knotwork." + ".".join(rel.parts), path))
    return out


def test_every_top_level_name_has_a_stage() -> None:
    names = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    }
    assert names - set(RANK) - APART == set(), "add the new module or package to STAGES"


@pytest.mark.parametrize(("module", "path"), _modules(), ids=lambda v: str(v))
def test_no_module_imports_from_a_later_stage(module: str, path: Path) -> None:
    own = _top(module)
    late = []
    for imported in sorted(_imports(path)):
        other = _top(imported)
        if other == own or other in APART:
            continue
        if own in APART:
            assert RANK[other] <= RANK["core"], f"{module} (tooling) imports {imported}"
            continue
        if RANK[other] > RANK[own]:
            late.append(imported)
    assert late == [], f"{module} imports from a later stage: {late}"


def test_retrieval_and_ingest_do_not_import_each_other() -> None:
    """The two sides share text rules through knotwork.text, never each other's modules."""
    for module, path in _modules():
        side = _top(module)
        if side not in ("ingest", "retrieve"):
            continue
        other = "retrieve" if side == "ingest" else "ingest"
        crossing = [m for m in _imports(path) if _top(m) == other]
        assert crossing == [], f"{module} imports {crossing}"
