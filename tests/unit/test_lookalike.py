"""Note names that would pass for another note's are refused; names real users type are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.errors import VaultPathError
from knotwork.vault.new_names import (
    compat_key,
    lookalike_name,
    new_name_problem,
    separator_name,
    unportable_name,
)
from knotwork.vault.write import checked_relpath

FLAG_ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"


@pytest.mark.parametrize(
    "path",
    [
        # Space or blank around the stem, before ".md" too (the title is "Alice ").
        "People/Alice .md",
        "People/Alice\u00a0.md",  # no-break space
        "People/Alice\u3000.md",  # ideographic space
        "People/\u3164Alice.md",  # Hangul filler
        "People/Alice\u2800.md",  # braille blank
        # A character that shows nothing, anywhere in the name.
        "People/Al\u034fice.md",  # combining grapheme joiner
        "People/Al\u3164ice.md",  # Hangul filler
        "People/Al\uffa0ice.md",  # halfwidth Hangul filler
        "People/Al\u115fice.md",  # Hangul choseong filler
        "People/Al\u2800ice.md",  # braille blank
        "People/Al\U000e0021ice.md",  # tag character outside a flag
        "People/Al\u180eice.md",  # Mongolian vowel separator (Cf)
        "People/Al\u2061ice.md",  # function application (Cf)
        "People/Al\u061cice.md",  # Arabic letter mark (Cf)
        "People/Ali\x85ce.md",  # next line, a C1 control (Cc)
        "People/Ali\x9bce.md",  # control sequence introducer (Cc)
        "People/Ali\u2028ce.md",  # line separator (Zl)
        "People/Ali\u2029ce.md",  # paragraph separator (Zp)
        "People/Al\u200dice.md",  # ZWJ between Latin letters
        "People/Al\u200cice.md",  # ZWNJ between Latin letters
        "People/Alice\ufe0f.md",  # variation selector after a letter
        "People/Alice1\ufe0f.md",  # … after a digit that is no keycap
        "People/\u6f22\U000e0100.md",  # ideographic variation selector
        "People/x\U0001f3f4\U000e0067\U000e0062.md",  # a flag's tags without the cancel tag
    ],
)
def test_a_name_that_looks_like_another_is_refused(path: str) -> None:
    assert lookalike_name(path), path


@pytest.mark.parametrize(
    "path",
    [
        "People/Alice.md",
        "Café.md",
        "Cafe\u0301.md",  # decomposed
        "日本語のノート.md",
        "한국어 메모.md",
        "Привет мир.md",
        "\U0001f469\u200d\U0001f4bb notes.md",  # 👩‍💻 woman technologist
        "\U0001f468\U0001f3fd\u200d\U0001f4bb.md",  # with a skin tone
        "\U0001f3f3\ufe0f\u200d\U0001f308 pride.md",  # 🏳️‍🌈
        "\u2764\ufe0f\u200d\U0001f525.md",  # ❤️‍🔥
        "1\ufe0f\u20e3 first.md",  # keycap 1️⃣
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.md",  # Persian, with its ZWNJ
        "\u0915\u094d\u200d\u0937.md",  # Devanagari half form, with ZWJ
        f"{FLAG_ENGLAND} England.md",
        "\u1820\u180b\u1821.md",  # Mongolian free variation selector
    ],
)
def test_a_name_a_user_types_is_kept(path: str) -> None:
    assert lookalike_name(path) is None, lookalike_name(path)


def test_the_refusal_says_what_the_name_looks_like() -> None:
    said = lookalike_name("People/Alice\u3164.md") or ""
    assert "begins or ends with a space or a blank, so it looks like 'Alice.md'" in said
    said = lookalike_name("People/Al\u034fice.md") or ""
    assert "holds the invisible character U+034F" in said


def test_a_path_no_file_system_holds_is_refused_with_its_echo_cut() -> None:
    """A read of a 60,000-byte name echoed it whole; a write cut it."""
    for path in ("a" * 60_000 + ".md", "a/" * 3_000 + "b.md"):
        with pytest.raises(VaultPathError, match="bytes long; file systems allow") as caught:
            checked_relpath(path)
        assert len(str(caught.value)) < 300
    assert checked_relpath("./People//Alice.md") == "People/Alice.md"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("a#b.md", "holds '#'"),
        ("x]].md", "holds ']'"),
        ("a>b.md", "holds '>'"),
        ("Folder ", "ends with a dot or a space"),
        ("notes.", "ends with a dot or a space"),
        ("com9.md", "'COM9', a device name"),
        ("PRN", "'PRN', a device name"),
        ("aux .txt.md", "'AUX', a device name"),
    ],
)
def test_a_name_obsidian_refuses_says_which_character_and_why(name: str, said: str) -> None:
    assert said in (unportable_name(name, name) or ""), unportable_name(name, name)


@pytest.mark.parametrize(
    "name", ["Alice.md", "COM10.md", "Console.md", "nullable.md", "a.b.md", "C++.md", "50%.md"]
)
def test_a_name_obsidian_takes_passes(name: str) -> None:
    assert unportable_name(name, name) is None


def test_compatibility_forms_and_case_fold_together_but_scripts_do_not() -> None:
    assert compat_key("\ufb01le.md") == compat_key("FILE.md") == compat_key("\uff46ile.md")
    assert compat_key("\u0430lice.md") != compat_key("alice.md"), "Cyrillic: no confusables table"
    assert separator_name("a\u2215b.md", "a\u2215b.md") and separator_name("\u2025", "\u2025/x.md")
    assert separator_name("a\u2026.md", "a\u2026.md") is None, "an ellipsis is a user's"


def test_a_slash_look_alike_is_refused_in_new_names_only(tmp_path: Path) -> None:
    """ "AC\u2215DC", "Q2\uff0f2024": how file names write a slash. A folder of the user's so
    named takes new notes (it was refused, the refusal asking to rename what the client cannot);
    a new folder or note so named is refused."""
    (tmp_path / "AC\u2215DC").mkdir()
    (tmp_path / "Q2\uff0f2024").mkdir()
    assert new_name_problem(tmp_path, "AC\u2215DC/setlist.md") is None
    assert new_name_problem(tmp_path, "Q2\uff0f2024/plan.md") is None
    said = new_name_problem(tmp_path, "New\u2215Folder/plan.md") or ""
    assert "U+2215 (DIVISION SLASH), which looks like '/'" in said
    assert new_name_problem(tmp_path, "AC\u2215DC/a\uff0fb.md")
