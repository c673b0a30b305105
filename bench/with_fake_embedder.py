"""Run a command with the loopback hashing embedder standing in for Ollama.

Usage: ``.venv/bin/python -m bench.with_fake_embedder -- knotwork eval --vault … --questions …``

The fake (tests/fakes/ollama.py) answers ``/api/embed`` with feature-hashed vectors of the text's
words: a lexical stand-in for an embedding model, never a semantic or multilingual one. The
command runs with ``KNOTWORK_OLLAMA_BASE_URL`` pointing at it, extraction off; its exit status is
this script's.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.fakes.ollama import FakeOllama


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.stderr.write(__doc__ or "")
        return 2
    fake = FakeOllama().start()
    try:
        env = os.environ | {"KNOTWORK_OLLAMA_BASE_URL": fake.base_url, "KNOTWORK_EXTRACT": "false"}
        return subprocess.run(args, env=env, check=False).returncode
    finally:
        fake.stop()


if __name__ == "__main__":
    sys.exit(main())
