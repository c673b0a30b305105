"""The embedding worker: an in-process model run in a child process of its own, so its forward
pass never waits for the interpreter lock of the process that ingests (drafting, mentions, the
Bolt driver) and the two use both cores.

Started by knotwork.llm.embed_process as ``python -m knotwork.llm.embed_worker SPEC`` (SPEC: an
``EncoderSpec`` as JSON), it speaks over its stdin and stdout in frames, each a 4-byte big-endian
length and that many bytes:

- worker → parent, once loaded: a vectors frame with no rows, giving the vector size;
- parent → worker: a texts frame (a 4-byte count, then each text as a 4-byte length and UTF-8);
- worker → parent: a vectors frame (status 0, 4-byte rows and dimension, then rows times dimension
  little-endian float32), or an error frame (status 1, or 2 for a setting that cannot work,
  then a UTF-8 message).

No pickle either way. The worker ends when its stdin closes: the parent closed it, or died.
"""

from __future__ import annotations

import os
import signal
import struct
import sys
from typing import IO, TYPE_CHECKING

from knotwork.errors import ConfigError

if TYPE_CHECKING:
    from knotwork.llm.encoders import Vectors

OK, FAILED, CONFIG = 0, 1, 2
_LENGTH = struct.Struct(">I")
SHAPE = struct.Struct(">BII")  # status, rows, dimension


def write_frame(stream: IO[bytes], *parts: bytes) -> None:
    stream.write(_LENGTH.pack(sum(map(len, parts))))
    for part in parts:
        stream.write(part)
    stream.flush()


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame's bytes; None at a clean end of the stream (none begun); EOFError when the
    stream ends inside a frame."""
    head = stream.read(_LENGTH.size)
    if not head:
        return None
    if len(head) < _LENGTH.size:
        raise EOFError("the stream ended inside a frame's length")
    (size,) = _LENGTH.unpack(head)
    body = stream.read(size)
    if len(body) < size:
        raise EOFError(f"the stream ended after {len(body)} of a frame's {size} bytes")
    return body


def pack_texts(texts: list[str]) -> bytes:
    parts = [_LENGTH.pack(len(texts))]
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        parts += (_LENGTH.pack(len(data)), data)
    return b"".join(parts)


def unpack_texts(body: bytes) -> list[str]:
    view = memoryview(body)
    (count,) = _LENGTH.unpack_from(view, 0)
    at, texts = _LENGTH.size, []
    for _ in range(count):
        (size,) = _LENGTH.unpack_from(view, at)
        at += _LENGTH.size
        texts.append(bytes(view[at : at + size]).decode("utf-8", "surrogatepass"))
        at += size
    if at != len(body):
        raise ValueError(f"a texts frame of {len(body)} bytes held {at}")
    return texts


def vectors_frame(vectors: Vectors) -> tuple[bytes, bytes]:
    rows, dimension = vectors.shape
    data = vectors.astype("<f4", copy=False).tobytes(order="C")
    return SHAPE.pack(OK, rows, dimension), data


def error_frame(status: int, message: str) -> bytes:
    return bytes([status]) + message.encode("utf-8", "replace")


def serve(spec_json: str, source: IO[bytes], sink: IO[bytes]) -> int:
    """Load the model, say so, then answer texts frames until ``source`` ends."""
    from knotwork.llm.encoders import EncoderSpec

    try:
        encoder, dimension = EncoderSpec.from_json(spec_json).load()
    except ConfigError as exc:
        write_frame(sink, error_frame(CONFIG, str(exc)))
        return 2
    import numpy as np

    write_frame(sink, *vectors_frame(np.zeros((0, dimension), dtype=np.float32)))
    while (body := read_frame(source)) is not None:
        texts = unpack_texts(body)
        try:
            vectors = encoder(texts)
        except Exception as exc:  # reported for this batch; the model stays loaded
            write_frame(sink, error_frame(FAILED, f"{type(exc).__name__}: {exc}"))
            continue
        write_frame(sink, *vectors_frame(vectors))
    return 0


def main() -> int:
    # Ctrl-C reaches the whole process group: the parent decides when this ends (stdin closed).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The protocol keeps the original stdout to itself; anything a library prints goes to stderr.
    sink = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return serve(sys.argv[1], sys.stdin.buffer, sink)


if __name__ == "__main__":
    sys.exit(main())
