"""What the REST write routes share: the refusals of ``api.note_writes`` as HTTP errors."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from fastapi import HTTPException, status

from knotwork.errors import (
    LeaseHeldError,
    LeaseLostError,
    NoteError,
    NoteNotFoundError,
    NoteTooLargeError,
    VaultPathError,
    WriteConflictError,
)


@contextlib.contextmanager
def as_http() -> Iterator[None]:
    """A write refused: 422 for the path itself, 413 or 422 for a body that is not a note,
    409 for a conflict with what the vault holds (a symlink, a case variant, a folder in the
    way, a read-only vault, no vault) or a writer that would not ingest it, 404 for no such
    note. A lease lost midway goes on to the app's handler (409 LeaseLostError)."""
    try:
        yield
    except VaultPathError as exc:
        raise HTTPException(422, str(exc)) from exc
    except NoteError as exc:
        raise HTTPException(413 if isinstance(exc, NoteTooLargeError) else 422, str(exc)) from exc
    except WriteConflictError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc
    except NoteNotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    except LeaseLostError:
        raise
    except LeaseHeldError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc
