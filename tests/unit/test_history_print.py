"""How ``knotwork history`` prints a revision's fact: a link's or a mention's target as the
note its stored key names, as ``knotwork note`` prints it, not as the key."""

from __future__ import annotations

from knotwork.cli.printed import revision_fact
from knotwork.graph.names import NameIndex
from knotwork.ingest import mentions
from knotwork.ingest.rows import canonical
from knotwork.models import Fact, fact_key
from knotwork.text.keys import link_key, name_key, note_name_keys


def _names(*paths: str) -> NameIndex:
    index = NameIndex()
    for path in paths:
        stem = path.rsplit("/", 1)[-1].removesuffix(".md")
        index.put(path, link_key(path), note_name_keys(stem, stem, []))
    return index


def test_a_mention_is_shown_as_the_note_its_key_names() -> None:
    names = _names("中文/北京大学.md", "Русский/Санкт-Петербург.md")
    beijing = mentions.canonical(name_key("北京大学") or "", 3, "c1")
    assert beijing.split("|")[2] == "北 京 大 学"  # the key stored, a character a word
    shown = revision_fact(beijing, names, "中文/张伟.md")
    assert shown == "MENTIONS → 中文/北京大学.md  [mention, line 3]"
    spb = mentions.canonical(name_key("Санкт-Петербург") or "", 3, "c1")
    assert revision_fact(spb, names, "Русский/Москва.md").startswith(
        "MENTIONS → Русский/Санкт-Петербург.md  ["
    )


def test_a_link_is_shown_as_the_note_it_resolves_to() -> None:
    link = fact_key("LINKS_TO", None, link_key("Санкт-Петербург"), "wikilink", 3, None, "c1")
    names = _names("Русский/Санкт-Петербург.md")
    assert revision_fact(link, names).startswith("LINKS_TO → Русский/Санкт-Петербург.md  [")
    assert revision_fact(link, _names()).startswith("LINKS_TO → санкт-петербург  [")


def test_a_mention_of_a_note_gone_is_shown_as_its_words() -> None:
    shown = {"北京大学": "北京大学", "เชียงใหม่": "เชียงใหม่", "東京タワー": "東京タワー",
             "Café de Flore": "café de flore"}  # fmt: skip
    for name, words in shown.items():
        key = mentions.canonical(name_key(name) or "", 1, "c1")
        assert revision_fact(key, _names()) == f"MENTIONS → {words}  [mention, line 1]"
    assert revision_fact("odd") == "odd"


def test_a_frontmatter_link_is_shown_as_the_note_it_resolves_to() -> None:
    """``works_at: "[[Acme]]"`` is a link as a wikilink is; a plain value stays as its key."""
    names = _names("Acme.md", "Chemist.md")
    link = fact_key("LINKS_TO", None, link_key("Acme"), "frontmatter", 3, "works_at", None)
    assert revision_fact(link, names) == "LINKS_TO ('works_at') → Acme.md  [frontmatter, line 3]"
    assert revision_fact(link, _names()).startswith("LINKS_TO ('works_at') → acme  [")
    value = fact_key("HAS_PROPERTY", None, "chemist", "frontmatter", 2, "job", None)
    assert revision_fact(value, names).startswith("HAS_PROPERTY ('job') → chemist  [")


def test_a_frontmatter_link_under_a_key_with_its_own_relation_is_shown_as_its_note() -> None:
    """``owner: "[[Dana]]"`` relates as ``owner: Dana`` does (HAS_OWNER): its key records that
    it is a link, so it is shown as the note it names, as ``note`` shows it; the plain value
    and a revision written before the marker (a bare key) are shown as their key."""
    names = _names("People/Dana.md")
    link = canonical(Fact("HAS_OWNER", "Dana", "note", "frontmatter", 2, predicate="owner"))
    shown = "HAS_OWNER ('owner') → People/Dana.md  [frontmatter, line 2]"
    assert revision_fact(link, names) == shown
    assert revision_fact(link, _names()).startswith("HAS_OWNER ('owner') → dana  [")
    value = canonical(Fact("HAS_OWNER", "Dana", "entity", "frontmatter", 3, predicate="owner"))
    assert revision_fact(value, names).startswith("HAS_OWNER ('owner') → dana  [")
    before = fact_key("HAS_OWNER", None, "dana", "frontmatter", 2, "owner", None)
    assert revision_fact(before, names).startswith("HAS_OWNER ('owner') → dana  [")


def test_an_alias_is_shown_as_written() -> None:
    alias = canonical(Fact("HAS_ALIAS", "Ali Ğ", "entity", "alias", 2))
    assert revision_fact(alias, _names()) == "HAS_ALIAS → Ali Ğ  [alias, line 2]"
    before = fact_key("HAS_ALIAS", None, "ali", "alias", 2, None, None)  # an older revision
    assert revision_fact(before, _names()) == "HAS_ALIAS → ali  [alias, line 2]"
