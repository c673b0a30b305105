"""Unlinked mentions: names and text as word sequences, links and code left out."""

from __future__ import annotations

from knotwork.ingest.mentions import chunk_mtext
from knotwork.text.keys import mention_key, name_key, note_name_keys, words
from knotwork.text.names_found import chunk_grams


def test_keys_are_casefolded_words() -> None:
    assert mention_key("Marco  Rossi's") == "marco rossi s"
    assert mention_key("Node.js") == mention_key("node-js") == "node js"
    assert mention_key("Straße") == mention_key("STRASSE")
    assert name_key("AI") is None  # too short to mean anything
    assert name_key("one two three four five six seven") is None  # more words than a gram
    # A name made of stop words would be "mentioned" by every note of its language.
    assert name_key("Tra") is None and name_key("Come") is None and name_key("De la") is None
    assert name_key("Tra le righe") == "tra le righe"
    assert note_name_keys("Marco Rossi", "Marco Rossi", ["MR", "Il Rossi"]) == [
        "il rossi",
        "marco rossi",
    ]


def test_an_escaped_backtick_hides_no_name_and_shows_none_in_code() -> None:
    shown = chunk_grams(r"\`Marco Rossi` and \`x` Anna Bianchi `y`", (1,))
    assert "marco rossi" in shown and "anna bianchi" not in shown


def test_grams_skip_links_code_and_urls_and_keep_lines() -> None:
    text = "\n".join(
        [
            "I met Marco Rossi today.",
            "[[Anna Bianchi]] and [Luca](Luca.md) and `Sara Verdi` and https://ugo-neri.example",
            "```",
            "Piero Gialli in a fence",
            "```",
            "",
            "Later, MARCO rossi again.",
        ]
    )
    grams = chunk_grams(text, (3, 4, 5, 6, 7, 9, 9))
    assert grams["marco rossi"] == 3  # first occurrence
    assert grams["met marco rossi today"] == 3
    for hidden in ("anna bianchi", "luca", "sara verdi", "ugo neri", "piero gialli"):
        assert hidden not in grams
    assert "and" in grams and "later" in grams and grams["later"] == 9
    assert all(1 <= len(g.split()) <= 6 and len(g) >= 3 for g in grams)
    masked = [
        "``Marco Rossi`` in double backticks",
        "www.example.com/marco-rossi and HTTPS://x.example/marco-rossi",
        "write to marco.rossi@example.com",
        "[m](Marco%20(Rossi).md) links",
    ]
    grams = chunk_grams("\n".join(masked), (1, 2, 3, 4))
    assert not [g for g in grams if "marco" in g or "rossi" in g], grams
    assert {"double backticks", "write", "links"} <= set(grams)
    # Code between two words keeps them apart: "Marco `x` Rossi" names no Marco Rossi.
    grams = chunk_grams("Marco `x` Rossi came and a" + "a" * 20000 + " marco@x.example", (1,))
    assert "marco rossi" not in grams and "marco" in grams and "rossi came" in grams


def test_mtext_holds_every_gram() -> None:
    text = "Ask [[X]] about Marco-Rossi,\nthen Node.js `code`."
    padded = chunk_mtext(text)
    for gram in chunk_grams(text, (1, 2)):
        assert f" {gram} " in padded


def test_spaceless_scripts_are_matched_a_character_at_a_time() -> None:
    """Chinese and Japanese run words together: a name is found inside a run, up to twelve of
    its characters (each counts half a word), and one character alone names nothing."""
    assert mention_key("北京大学") == "北 京 大 学"
    assert name_key("北京") == "北 京" and name_key("猫") is None
    assert name_key("東京スカイツリー") == "東 京 ス カ イ ツ リ ー"  # eight characters
    assert name_key("一二三四五六七八九十一二三") is None  # thirteen: past the longest gram
    grams = chunk_grams("我昨天去了北京大学。\n東京スカイツリーに行った。", (4, 5))
    assert grams["北 京"] == 4 and grams["北 京 大 学"] == 4
    assert grams["東 京 ス カ イ ツ リ ー"] == 5
    assert all(len(g) >= 3 for g in grams)  # no one-character gram


def test_thai_lao_khmer_and_myanmar_are_matched_a_letter_at_a_time() -> None:
    """Thai, Lao, Khmer and Myanmar run their words together as Chinese does, but a letter
    carries its vowel signs and tone marks: a name is found inside a run, a letter with its
    marks at a time, up to 24 letters; two letters name nothing."""
    assert mention_key("เชียงใหม่") == "เ ชี ย ง ใ ห ม่"  # Chiang Mai: marks kept on letters
    grams = chunk_grams("ฉันไปเชียงใหม่เมื่อวาน\nມາຈາກວຽງຈັນ\nទៅភ្នំពេញ\nမြန်မာနိုင်ငံ", (7, 8, 9, 10))
    assert grams[name_key("เชียงใหม่") or ""] == 7
    assert grams[name_key("ວຽງຈັນ") or ""] == 8  # Vientiane, Lao
    assert grams[name_key("ភ្នំពេញ") or ""] == 9  # Phnom Penh, Khmer
    assert grams[name_key("မြန်မာ") or ""] == 10  # Myanmar
    assert name_key("ชีย") is None and name_key("ไทย") == "ไ ท ย"
    assert name_key("มหาวิทยาลัยเชียงใหม่") == "ม ห า วิ ท ย า ลั ย เ ชี ย ง ใ ห ม่"  # 16
    assert name_key("ก" * 25) is None  # past the longest gram
    # A space between two Thai phrases keeps a name from running across it …
    assert name_key("ไปเชียง") not in chunk_grams("ไป เชียงใหม่", (1,))
    # … and a name holding one (a given name and surname) is found with it.
    assert name_key("สมชาย ใจดี") in chunk_grams("ผู้เขียนคือ สมชาย ใจดี ครับ", (1,))
    assert name_key("서울 시청") in chunk_grams("나는 서울 시청에 갔다", (1,))
    # A sign the Thai script shares with Latin (U+02BC) stays in the Latin word it is in.
    assert words("a\u02bcb ไทย") == ["a\u02bcb", "ไ", "ท", "ย"]


def test_words_keep_their_combining_marks() -> None:
    """``\\w`` alone cuts Devanagari at its vowel signs and Hebrew at its points: "हिन्दी"
    would be the gram "ह न द", which other words share."""
    assert mention_key("हिन्दी भाषा") == "हिन्दी भाषा"
    assert mention_key("שָׁלוֹם עולם") == "שָׁלוֹם עולם"
    assert name_key("नमस्ते दुनिया") == "नमस्ते दुनिया"
    assert "नमस्ते दुनिया" in chunk_grams("मैंने कहा नमस्ते दुनिया!", (1,))


def test_a_text_splits_into_the_same_words_whatever_else_it_holds() -> None:
    """Latin text takes a faster path than text with marks or spaceless scripts: both must
    cut it alike, or a name would match in one note and not in another."""
    latin = "E=mc² and ½ cup, naïve café_au_lait Ⅻ"
    assert words(latin) == ["e", "mc²", "and", "½", "cup", "naïve", "café_au_lait", "ⅻ"]
    assert words(latin + " 北") == [*words(latin), "北"]
    assert words(latin + " हिन्दी") == [*words(latin), "हिन्दी"]


def test_no_name_runs_across_a_space_or_punctuation_between_spaceless_characters() -> None:
    """Korean puts spaces between words: "회사 과장님" (company, section chief) does not
    mention 사과 (apple); "東、京都" does not name 東京; the long vowel mark is katakana."""
    assert "사 과" not in chunk_grams("회사 과장님", (1,))
    assert "서 울" in chunk_grams("서울에서 만나요", (1,))  # a particle joined to the name
    assert "東 京" not in chunk_grams("東、京都", (1,)) and "京 都" in chunk_grams("東、京都", (1,))
    assert words("スーパー") == ["ス", "ー", "パ", "ー"]
    assert name_key("スーパーマーケット") == "ス ー パ ー マ ー ケ ッ ト"
