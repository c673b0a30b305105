"""Frontmatter through libyaml's parser loads exactly as through PyYAML's own, limits included;
what libyaml refuses is reported as PyYAML words it."""

from __future__ import annotations

import pytest
import yaml

from knotwork.ingest import frontmatter
from knotwork.ingest.frontmatter import load_frontmatter

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
    assert load_frontmatter(block) == ({}, [], reason)


def test_an_error_is_worded_by_pythons_parser_at_the_line_it_starts() -> None:
    # libyaml places an unclosed bracket at the end of the block.
    assert load_frontmatter("title: ok\nbad: [unclosed") == (
        {},
        [],
        "invalid YAML at line 3: expected ',' or ']', but got '<stream end>'",
    )
