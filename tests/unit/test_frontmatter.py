"""Frontmatter through libyaml's parser loads exactly as through PyYAML's own, limits included;
what libyaml refuses is reported as PyYAML words it."""

from __future__ import annotations

import pytest
import yaml

from knotwork.ingest import frontmatter
from knotwork.ingest.frontmatter import Loaded, load_frontmatter

BLOCKS = [
    "title: Alice\naliases: [Al, 'Smith, Alice', Al]\ntags: [a, b]",
    "date: 2024-02-30\nwhen: 2024-01-05\nat: 2024-01-05T10:00:00Z\nstamp: !!timestamp soon",
    "parent: [[Bob]]\nrelated:\n  - '[[Carol]]'\n  - \"[[Dan|D]]\"",
    "nested:\n  a: 1\n  b: [x, {c: 2.5, d: .inf, e: .nan}]\nyes: yes\nno: ~\nempty:",
    "base: &b {k: v}\nuse: *b\nset: !!set {a, b}\nbin: !!binary aGVsbG8=",
    "multi: |\n  line one\n  line two\nfolded: >\n  a\n  b\nquoted: 'it''s'",
    "- a list\n- not a mapping",
    "just a string",
    "",
    "Straße: naïve\n日本: 語\nemoji: 🙂",
    "aliases: [NO, Norge]\ntags: [on-hold, off]\nat: 12:30\nn: [007, 0x1F, 1e3, -2.5, true]",
    "description: pasted\u2028soft\u2029break\x85here\nup: '[[Parent]]'\ntags: [a]",
    "sep: ._\nf: .5\ng: 1_000\nh: 0o17\ni: +5\nj: 6.02e+23\nk: -.inf\nl: .NaN\nm: 1.",
    "title: First\ntitle: Second\nn:\n  a: 1\n  a: 2\nbase: &b {k: v}\ncopy: {<<: *b, k: w}",
]


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML was built without libyaml")
def test_libyaml_is_the_parser_when_present() -> None:
    assert frontmatter._Loader is not frontmatter._BoundedLoader


@pytest.mark.parametrize("block", BLOCKS)
def test_both_parsers_load_a_block_alike(block: str) -> None:
    fast = frontmatter._loaded(block, frontmatter._Loader)
    pure = frontmatter._loaded(block, frontmatter._BoundedLoader)
    assert fast == pure
    assert load_frontmatter(block) == pure


def laughs(levels: int, width: int) -> str:
    lines = ["a0: &a0 lol"]
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * width)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (laughs(10, 10), "frontmatter refused: more than 50 YAML aliases"),
        (laughs(25, 2), "frontmatter refused: more than 10000 values"),
        ("a: " + "[" * 40 + "]" * 40, "frontmatter refused: more than 20 levels of nesting"),
    ],
)
def test_the_limits_hold_under_libyaml_too(block: str, reason: str) -> None:
    with pytest.raises(frontmatter._TooComplexError, match=reason):
        frontmatter._loaded(block, frontmatter._Loader)
    assert load_frontmatter(block) == Loaded(error=reason)


def test_an_error_is_worded_by_pythons_parser_at_the_line_it_starts() -> None:
    # libyaml places an unclosed bracket at the end of the block.
    assert load_frontmatter("title: ok\nbad: [unclosed") == Loaded(
        error="invalid YAML at line 3: expected ',' or ']', but got '<stream end>'"
    )


def test_plain_words_stay_words_as_in_yaml_1_2_and_obsidian() -> None:
    """PyYAML's YAML 1.1 made Norway's alias `NO` the boolean False (and so a name key
    "false"), the tag `off` False and `12:30` the number 750."""
    fm = load_frontmatter(
        "aliases: [NO, Norge]\ntags: [on-hold, off]\nmeeting: 12:30\nyes: y\ndone: true\nn: 42"
    )
    assert fm.error is None
    assert fm.data == {
        "aliases": ["NO", "Norge"],
        "tags": ["on-hold", "off"],
        "meeting": "12:30",
        "yes": "y",
        "done": True,
        "n": 42,
    }
    assert ("aliases", "NO", 2) in [(v.key, v.value, v.line) for v in fm.values]


def test_a_soft_line_break_inside_a_value_neither_ends_it_nor_shifts_later_lines() -> None:
    block = "description: pasted\u2028text\nup: '[[Parent]]'\ntags: [a]"
    fm = load_frontmatter(block)
    assert fm.error is None and fm.data["description"] == "pasted text"
    assert [(v.key, v.line) for v in fm.values] == [("description", 2), ("up", 3), ("tags", 4)]


def test_a_dot_and_underscores_are_a_word_not_a_float_that_fails() -> None:
    fm = load_frontmatter("title: Note\nsep: ._\nf: .5\ntags: [a]")
    assert fm.error is None and fm.data == {"title": "Note", "sep": "._", "f": 0.5, "tags": ["a"]}


def test_a_key_written_twice_is_said_with_its_lines_and_its_last_value_kept() -> None:
    """Before, `title: First` then `title: Second` loaded "Second" and said nothing, though
    Obsidian refuses the block. The last value stands everywhere (the loaded mapping and the
    values read for facts); a YAML merge's keys a mapping overrides are no repeat."""
    block = "title: First\nrole: dev\ntitle: Second\nn:\n  a: 1\n  a: 2\n  a: 3\n"
    block += "base: &b {k: v}\ncopy: {<<: *b, k: w}"
    fm = load_frontmatter(block)
    assert fm.error is None and fm.data["title"] == "Second" and fm.data["n"] == {"a": 3}
    assert fm.warnings == [
        "frontmatter key 'title' written 2 times, at lines 2 and 4: the last (line 4) is "
        "kept, the others ignored; Obsidian refuses a repeated key",
        "frontmatter key 'n.a' written 3 times, at lines 6, 7 and 8: the last (line 8) is "
        "kept, the others ignored; Obsidian refuses a repeated key",
    ]
    read = [(v.key, v.value, v.line) for v in fm.values]
    assert ("title", "First", 2) not in read and ("title", "Second", 4) in read
    assert ("n.a", "3", 8) in read and ("n.a", "1", 6) not in read
    assert ("copy.k", "w", 10) in read and ("copy.k", "v", 9) not in read
    assert fm.key_lines["title"] == 4 and fm.key_lines["role"] == 3
