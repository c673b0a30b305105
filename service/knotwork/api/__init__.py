"""The HTTP API: an app factory over the shared core."""

from knotwork.api.app import create_app

__all__ = ["create_app"]
