"""The citation check: the model's source numbers mapped back to the hits, the rest removed.

The model cites ``[S3]``, the number of a context block in this request's prompt; the answer
the user gets names the hit instead, as ``[path#heading]`` (``[path]`` for a chunk without a
heading). A number the prompt never gave (a bare ``[1]`` after a claim too), or anything else
written like a citation that names no retrieved chunk, is removed from the text and reported.
Two cited chunks of one label (a long section split, two ``## Log`` in a note) are told apart:
the later ones carry their lines, ``[path#heading:49-51]``, so each marker names one entry of the
answer's citations (``cite_match.markers``). The old form ``[path#heading]`` is still accepted
when it names a retrieved chunk (``answer.cite_match``), and so is a marker with lines. Paths
and headings may hold ``[``, ``]`` and ``#``: labels are found by exact comparison with the
hits, never by parsing what is inside brackets.

Parentheses are no convention of the prompt's, and names are written in them ("Galaxy (S23)"):
"(S2)" cites only when it names a block the prompt gave and is not, with the word before it
("Databases (S2)"), a name the prompt showed the model (in a note's text, a block's header, a
fact, the question); otherwise it stays as written, never removed.

The same scanner serves a whole answer and a streamed one (``answer.cite_stream``): it stops
before a ``[``, ``(`` or ``\u3010`` whose meaning the text so far does not settle (a citation
not finished, code not closed yet), so a citation split across chunks is rendered once it is
complete, and the streamed text equals the checked answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from knotwork.answer.cite_code import CodeMap, code_map
from knotwork.answer.cite_match import (
    BARE,
    cite_label,
    cites_bare,
    is_citation,
    marker,
    match_citation,
)
from knotwork.answer.cite_sources import (
    OPENING,
    PARENS_PREFIX,
    SOURCES,
    SQUARE_PREFIX,
    as_shown,
    begun,
    cited_numbers,
    lenticular_end,
    shown_name,
    source_tag,
    span_end,
)
from knotwork.retrieve import Hit

SPAN_CHARS = 1024  # the longest bracketed span read as a possible citation (more, for labels)
# [path#heading], [path.md], or the same in double brackets, one level of [] allowed inside;
# never a Markdown link's [text](url). Used only to remove citations, never to keep one.
_CITATION = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])+)\](?!\()")


@dataclass
class Checked:
    text: str
    cited: list[Hit] = field(default_factory=list)  # in order of first citation
    dropped: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)  # each cited hit's, as the text has it


@dataclass(frozen=True)
class _Decision:
    end: int  # where the text after the bracket resumes
    kept: list[Hit]  # empty with ``dropped`` set: a citation removed
    dropped: list[str]
    citation: bool = True  # False: an ordinary "[", copied as is
    verbatim: bool = False  # True: the span up to ``end`` is copied as is (a wikilink)


_PLAIN = _Decision(0, [], [], citation=False)


class CitationScanner:
    """Renders one request's answer text: the hits retrieved and the numbers the prompt gave.
    With ``sources``, only the hits the prompt showed can be cited, by number or by label: a
    hit left out of the context window is text the model never saw. ``given`` is the text the
    prompt showed the model (``Prompt.given``)."""

    def __init__(
        self, hits: Sequence[Hit], sources: Mapping[int, Hit] | None = None, given: str = ""
    ) -> None:
        self.sources = dict(sources or {})
        self._given = given
        self._shown: str | None = None  # ``given`` as ``shown_name`` compares it, once needed
        self._code: tuple[str, bool, CodeMap] | None = None  # the last text's, as it was read
        shown = {hit.id for hit in self.sources.values()}
        self.hits = [h for h in hits if h.id in shown] if sources else list(hits)
        # A label names the best-ranked hit it is the label of; a marker with lines, its hit.
        named = [(f"[{h.citation}]", h) for h in self.hits]
        named += [(cite_label(h), h) for h in reversed(self.hits)]
        labels = {k: h for k, h in named if "\n" not in k}
        self._labels = {**{f"[{k}]": h for k, h in labels.items()}, **labels}
        # How far a "[" is read for its "]": an invented citation longer than any label is
        # still one (and removed); a "[" left open longer than this is text, not a citation
        # still arriving, so a stream does not wait for it or read it again at every piece.
        self._longest = max(2 * max(map(len, self._labels), default=0) + 64, SPAN_CHARS)
        self.checked = Checked(text="")
        self._markers: dict[str, str] = {}  # hit id → its marker, given at its first citation

    def _label_at(self, text: str, i: int, final: bool) -> _Decision | None:
        rest = text[i : i + max(map(len, self._labels), default=0) + 1]
        if not final and any(len(rest) < len(k) and k.startswith(rest) for k in self._labels):
            return None
        found = max((k for k in self._labels if rest.startswith(k)), key=len, default=None)
        if found is None:
            return _PLAIN
        end = i + len(found)
        if end == len(text) and not final:
            return None  # a "(" next would make it a link
        if text.startswith("(", end):
            return _PLAIN
        return _Decision(end, [self._labels[found]], [])

    def _in_code(self, text: str, i: int, final: bool) -> bool | None:
        """Whether ``text[i]`` is code; None while the text so far does not say. The map is
        made once per text a scan reads."""
        read = self._code
        if read is None or read[0] is not text or read[1] != final:
            # A stream's text grows: its map goes on from the last one's, if that was not final.
            since = read[2] if read and not read[1] and text.startswith(read[0]) else None
            self._code = read = (text, final, code_map(text, final, since))
        return read[2].at(i)

    def _decide(self, text: str, i: int, final: bool) -> _Decision | None:
        """What the ``[``, ``(`` or ``\u3010`` at ``i`` starts; None when the text so far does
        not settle it. Inside code every bracket is text: code stays as written."""
        code = self._in_code(text, i, final)
        if code is None:
            return None
        if code:
            return _PLAIN
        if text[i] == "(":
            return self._parens(text, i, final)
        if text[i] == "\u3010":
            return self._lenticular(text, i, final)
        decision = self._label_at(text, i, final)
        if decision is not _PLAIN:
            return decision
        if not final and (prefix := SQUARE_PREFIX.match(text, i)) and prefix.end() == len(text):
            return None  # "[S1" may yet be "[S12]"
        if numbers := SOURCES.match(text, i):
            return self._numbered(numbers)
        if bare := BARE.match(text, i):
            return self._bare(text, i, bare.end(), final)
        end = span_end(text, i, self._longest)
        if end is None or (end == -1 and final):
            return _PLAIN
        if not final and end in (-1, len(text)):
            return None  # not closed yet, or a "(" next would make it a link
        return self._span(text, i, end)

    def _numbered(self, marker: re.Match[str]) -> _Decision:
        """A source marker: the hits of the numbers the prompt gave, the others dropped."""
        kept: list[Hit] = []
        dropped: list[str] = []
        for number in cited_numbers(marker):
            hit = self.sources.get(number)
            if hit is None:
                dropped.append(source_tag(number))
            elif hit not in kept:
                kept.append(hit)
        return _Decision(marker.end(), kept, dropped)

    def _parens(self, text: str, i: int, final: bool) -> _Decision | None:
        """ "(S1)", "(S1, S2)": source numbers alone in parentheses, not right after a word
        ("f(S1)") or a link's "]" ("[text](S1)"), naming a block the prompt gave, and not, with
        the word before it, a name the prompt showed ("Galaxy (S2)"): names stay as written."""
        if i and (text[i - 1].isalnum() or text[i - 1] in "_]"):
            return _PLAIN
        if numbers := SOURCES.match(text, i):
            if not any(n in self.sources for n in cited_numbers(numbers)):
                return _PLAIN
            if self._shown is None:
                self._shown = as_shown(self._given)
            if shown_name(text, i, numbers.end(), self._shown):
                return _PLAIN
            return self._numbered(numbers)
        if not final and (prefix := PARENS_PREFIX.match(text, i)) and prefix.end() == len(text):
            return None  # "(S1" may yet be "(S1, S2)"
        return _PLAIN

    def _lenticular(self, text: str, i: int, final: bool) -> _Decision | None:
        """ "\u3010S1\u3011" cites S1; any other text in those brackets is words."""
        end = lenticular_end(text, i, self._longest)
        if end == -1 and not final:
            return None
        numbers = SOURCES.match(text, i) if end not in (None, -1) else None
        return self._numbered(numbers) if numbers and numbers.end() == end else _PLAIN

    def _bare(self, text: str, i: int, end: int, final: bool) -> _Decision | None:
        """A bare "[1]": removed and reported where it cites, text elsewhere; None while what
        follows it has not arrived."""
        if not final and not text[end:].strip(" \t"):
            return None
        return _Decision(end, [], [text[i:end]]) if cites_bare(text, i, end) else _PLAIN

    def _span(self, text: str, i: int, end: int) -> _Decision:
        if text.startswith("(", end):
            return _PLAIN
        inner = text[i + 1 : end - 1]
        wikilink = inner.startswith("[") and inner.endswith("]")
        if wikilink:
            inner = inner[1:-1]
        if not is_citation(inner):
            return _PLAIN
        hit = match_citation(inner.strip(), self.hits)
        if hit:
            return _Decision(end, [hit], [])
        if wikilink:  # [[Bob#Projects]]: a link the model copied from a note, not a citation
            return _Decision(end, [], [], verbatim=True)
        return _Decision(end, [], [text[i:end]])

    def scan(self, text: str, pos: int, final: bool) -> tuple[str, int]:
        """The rendered text from ``pos`` on, and where the next scan resumes: before the first
        ``[``, ``(`` or ``\u3010`` still undecided, and before trailing whitespace (a removed
        citation takes the spaces before it along)."""
        out: list[str] = []
        while True:
            opening = OPENING.search(text, pos)
            bracket = opening.start() if opening else -1
            decision = None if bracket < 0 else self._decide(text, bracket, final)
            if decision is None:
                stop = len(text) if bracket < 0 else bracket
                kept = text[pos:stop] if final and bracket < 0 else text[pos:stop].rstrip()
                out.append(kept)
                return "".join(out), pos + len(kept)
            if not decision.citation:
                out.append(text[pos : bracket + 1])
                pos = bracket + 1
                continue
            if decision.verbatim:
                out.append(text[pos : decision.end])
                pos = decision.end
                continue
            before = text[pos:bracket]
            out.append(before if decision.kept else before.rstrip(" \t"))
            self._record(decision)
            out.append(" ".join(self._markers[h.id] for h in decision.kept))
            pos = decision.end

    def split_at(self, text: str, i: int) -> bool:
        """Whether the text from the ``[``, ``(`` or ``\u3010`` at ``i`` to its end is a citation
        begun and not finished: a source marker ("[", "[S1", "(Source 2, S": not "[1, 2") or a
        label, not in code. ``text`` is complete (a cut ends it): a run of backticks left open
        is backticks, not code."""
        tail = text[i:]
        if self._in_code(text, i, final=True):
            return False
        return begun(tail) or any(len(tail) < len(k) and k.startswith(tail) for k in self._labels)

    def _record(self, decision: _Decision) -> None:
        for hit in decision.kept:
            if hit.id not in self._markers:
                self._markers[hit.id] = marker(hit, self.checked.markers)
                self.checked.cited.append(hit)
                self.checked.markers.append(self._markers[hit.id])
        for written in decision.dropped:
            if written not in self.checked.dropped:
                self.checked.dropped.append(written)


def check_citations(
    text: str, hits: Sequence[Hit], sources: Mapping[int, Hit] | None = None, given: str = ""
) -> Checked:
    """Render the source numbers and the citations that name a retrieved chunk as the chunk's
    label; remove the others from the text and report them. ``given``: the text the prompt showed
    the model (``Prompt.given``), where a name with a parenthesis it copies is text."""
    scanner = CitationScanner(hits, sources, given)
    rendered, _ = scanner.scan(text, 0, final=True)
    scanner.checked.text = rendered.strip()
    return scanner.checked


def strip_citations(text: str, labels: Iterable[str] = ()) -> str:
    """The answer's words without its citation markers (what answer metrics compare): the
    ``labels`` of its citations, found exactly, then anything else written like one."""
    for written in sorted(set(labels), key=len, reverse=True):
        text = text.replace(written, " ")
    kept = SOURCES.sub("", text)
    kept = _CITATION.sub(lambda m: "" if is_citation(_inner(m.group(1))) else m.group(0), kept)
    return " ".join(kept.split())


def _inner(span: str) -> str:
    return span[1:-1] if span.startswith("[") and span.endswith("]") else span
