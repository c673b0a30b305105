"""The HTTP API: an app factory over the shared core.

``create_app`` is imported on first use: the MCP server uses this package's guard and schemas,
and should not load FastAPI and every route (with LlamaIndex behind the answers) to do so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from knotwork.api.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from knotwork.api.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
