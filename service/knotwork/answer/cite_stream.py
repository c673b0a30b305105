"""The model's answer fed to the citation check piece by piece, as it streams: each piece
returns the rendered text now settled, so the pieces sent add up to the checked answer
(``answer.cite.check_citations`` of the whole text)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from knotwork.answer.cite import Checked, CitationScanner
from knotwork.answer.cite_sources import OPENING
from knotwork.retrieve import Hit


class CitationStream:
    """Feeds the model's answer in pieces; each call returns the rendered text now settled.
    ``given`` is the text the prompt gave the model, as for ``check_citations``."""

    def __init__(
        self, hits: Sequence[Hit], sources: Mapping[int, Hit] | None = None, given: str = ""
    ) -> None:
        self._scanner = CitationScanner(hits, sources, given)
        self._text = ""
        self._pos = 0
        self._started = False
        self._held = ""  # whitespace sent only once text follows it: the answer is stripped

    def _emit(self, final: bool) -> str:
        rendered, self._pos = self._scanner.scan(self._text, self._pos, final)
        rendered = self._held + rendered
        if not self._started:
            rendered = rendered.lstrip()
            self._started = bool(rendered)
        sent = rendered.rstrip()
        self._held = "" if final else rendered[len(sent) :]
        return sent

    @property
    def checked(self) -> Checked:
        """The citations kept and dropped so far (``text`` stays empty: the caller has it)."""
        return self._scanner.checked

    def feed(self, delta: str) -> str:
        self._text += delta
        return self._emit(final=False)

    def close(self) -> str:
        """The rest of the text, now that the answer is complete."""
        return self._emit(final=True)

    def cut(self) -> str:
        """The rest of an answer cut off by a limit: a citation the cut split ("… [S1" of
        "[S12]", "… [notes.md#In" of a label) is left out of ``text`` rather than shown as a
        bracket that cites nothing. It may follow brackets still undecided ("Press ` (x) [S1")."""
        for start in OPENING.finditer(self._text, self._pos):
            if self._scanner.split_at(self._text, start.start()):
                self._text = self._text[: start.start()]
                break
        return self._emit(final=True)

    @property
    def text(self) -> str:
        """The model's text as fed (less a marker ``cut`` left out)."""
        return self._text
