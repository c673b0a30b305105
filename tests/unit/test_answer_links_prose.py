"""The answer's link filter leaves prose and code that only look like attributes as written:
``name=value`` is an attribute only in a start tag a browser reads; a stray backtick holds
back no more than the words being read, and costs no re-reading of the text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from knotwork.answer import cite_code
from knotwork.answer.links import REMOVED, LinkStream
from tests.unit.test_answer_links_held import EVIL, unlinked
from tests.unit.test_answer_links_read import live

_AS_WRITTEN = [
    "`GET /api/events?from=2024-01-01&to=2024-02-01`",
    'Use `fetch(url + "?to=" + id)` here.',
    '```\nurl = base + "?from=" + start + "&to=" + end\n```',
    '```\nrequests.post(url, data="a=1&b=2")\n```',
    '```\nstyle = "bold:italic"\n```',
    'e.g. `style="color: red; font-size: 12px"`.',
    'Set style="display:none" to hide it.',
    "Time range: from=T10:00 to=T12:00.",
    "The file is at src=C:\\images\\a.png here.",
    "Set style=font:bold.",
    # harmless HTML and SVG: an animation of no address, a policy, no refresh
    '<animate attributeName="opacity" from="0" to="1" dur="1s"/>',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'self\'">',
    'Use `<animate from="0" to="100">` to move it.',
]


@pytest.mark.parametrize("raw", _AS_WRITTEN)
def test_what_is_no_attribute_of_a_tag_stays_as_written(raw: str) -> None:
    assert unlinked(raw) == raw


def test_an_address_out_of_a_tag_keeps_its_quotes() -> None:
    assert unlinked('href="https://example.com" points') == f'href="{REMOVED}" points'


@pytest.mark.parametrize(
    "raw",
    [
        '<svg><a><set attributeName="href" to="javascript:alert(1)"/>x</a></svg>',
        '<meta http-equiv="refresh" content="0">',
        '<meta title="x\n\n" http-equiv=refresh content="0;//evil.example/p">',
        '<span title="x\n\n" style=background:url(//evil.example/p)>s</span>',
        '<a title="x\n\n" href=//evil.example/p>t</a>',
    ],
)
def test_in_a_tag_a_browser_reads_an_attribute_is_judged(raw: str) -> None:
    text = unlinked(raw)
    assert text != raw and EVIL not in live(text) and "javascript" not in text
    assert "refresh" not in text


def _held(raw: str, size: int) -> int:
    """The most characters fed to a stream and not yet sent, fed ``size`` at a time."""
    stream, fed, sent, most = LinkStream(""), 0, 0, 0
    for i in range(0, len(raw), size):
        fed += len(raw[i : i + size])
        sent += len(stream.feed(raw[i : i + size]))
        most = max(most, fed - sent)
    return most


def test_a_stray_backtick_holds_back_only_the_word_being_read() -> None:
    lines = "".join(f"- item {n} has a few plain words\n" for n in range(60))
    assert _held("Press the ` key to open the console.\n" + lines, 4) < 16
    # what code would keep waits for the code to be told: here, to the paragraph's end
    assert _held("Press ` then call `f[x](y)` and more words", 1) > 20


class _Counted:
    """A pattern that counts the characters its searches are given to read."""

    def __init__(self, pattern: re.Pattern[str], count: list[int]) -> None:
        self._pattern, self._count = pattern, count

    def search(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> re.Match[str] | None:
        found = self._pattern.search(text, pos, endpos)
        self._count[0] += (found.end() if found else min(endpos, len(text))) - pos
        return found

    def finditer(self, text: str, pos: int = 0, endpos: int = 1 << 62) -> Iterator[Any]:
        self._count[0] += min(endpos, len(text)) - pos
        return self._pattern.finditer(text, pos, endpos)


def test_an_unclosed_backtick_is_not_read_again_as_the_text_grows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    count = [0]
    for name in ("_TICKS", "_BREAK"):
        monkeypatch.setattr(cite_code, name, _Counted(getattr(cite_code, name), count))
    for name in ("step", "following"):
        real = getattr(cite_code, name)

        def counted(first: Any, line: str, real: Any = real) -> Any:
            count[0] += len(line)
            return real(first, line)

        monkeypatch.setattr(cite_code, name, counted)
    raw = ("Use the ` key. " + "The quick brown fox jumps over the lazy dog. " * 200)[:6000]
    stream = LinkStream("")
    sent = "".join([*(stream.feed(char) for char in raw), stream.close()])
    assert sent == raw.strip()
    assert count[0] < 20 * len(raw)  # read again from its start each time: ~len(raw)² / 2
