"""The MCP server: the vault's questions, reads and (when enabled) writes as tools for agents.

``server`` builds it (its lifespan, its instructions); ``answers``, ``reads`` and ``writes``
register the tools; ``http`` mounts it behind the REST API's rules, ``stdio`` serves it over
stdin and stdout answering every line. Nothing here imports LlamaIndex: the tools that need it
import ``knotwork.answer`` when they are called.
"""

from __future__ import annotations

from knotwork.mcp.http import http_app
from knotwork.mcp.server import create_mcp_server

__all__ = ["create_mcp_server", "http_app"]
