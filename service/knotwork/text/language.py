"""Which of the ten languages a note is written in, told by its commonest function words (and
Thai, Chinese, Japanese and Korean together, Russian and Arabic by their scripts); pure.

The language picks the full-text analyzer a note's chunks are indexed with (stemming and stop
words of that language: "alberi" finds "albero"). Function words are the most frequent words
of any text and differ between these six languages, so counting them tells a paragraph's
language without a model; a text with too few of them, or two languages nearly tied, is
"not sure" and gets the configured default.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Literal

import regex

from knotwork.text.scripts import (
    ARABIC_LETTER,
    CJK_LETTER,
    CYRILLIC_LETTER,
    THAI_LETTERS,
    char_class,
)

Language = Literal["en", "it", "de", "fr", "es", "pt", "th", "cjk", "ru", "ar"]
LANGUAGES: tuple[Language, ...] = ("en", "it", "de", "fr", "es", "pt", "th", "cjk", "ru", "ar")
# The Neo4j full-text analyzer of each language (its chunk label is in chunks_write.cypher).
ANALYZERS: dict[Language, str] = {
    "en": "english",
    "it": "italian",
    "de": "german",
    "fr": "french",
    "es": "spanish",
    "pt": "portuguese",
    "th": "thai",  # a dictionary splits its words, which run together
    # Chinese, Japanese and Korean: overlapping pairs of Han, kana and Hangul characters, so a
    # word is found inside a run ("서울" in "서울은", a Korean word with its particle).
    "cjk": "cjk",
    # Every note written mostly in Cyrillic: Russian's stemmer and stop words, and its yo read
    # as ye ("ежик" finds "ёжик"); a Ukrainian or Bulgarian note too (the script is all that is
    # told), so it is stemmed by Russian's rules, as well as case and yo folded.
    "ru": "russian",
    # Every note written mostly in the Arabic script: the forms of alef, "ة" and "ى" folded and
    # the vowel marks dropped, the article and common affixes stripped ("مدرسة" finds
    # "المدرسه").
    "ar": "arabic",
}

# Frequent function words, chosen to tell the six apart: words two languages share count for
# both, so the distinctive ones decide. No one-letter words ("y", "e", "o", "a" are variables in
# notes on mathematics) and none that notes use as markers ("todo").
_WORDS: dict[Language, str] = {
    "en": """the and of to is are was were that this with for which from have has be it not
        or by on an as at can will would there their they what when how why who its been also
        these those than into only such between each""",
    "it": """il lo gli della delle degli dello nella nelle nel sono è che per una uno non anche
        come più quando dove perché questo questa questi sulla alla alle dal dalla ogni essere
        viene hanno tra fra cui ed ma se di del dei al si ci con un la le da sia ha sul nei ai
        suo sua loro allora quindi mentre però cioè poi ovvero ossia""",
    "de": """der die das und ist nicht ein eine einer eines einem den dem des mit auf für sich
        auch von zu wird werden sind wie oder aber wenn dass bei nach noch nur kann im zum zur
        über durch diese dieser""",
    "fr": """le les des et est une dans pour pas qui que sur avec sont ce cette ces au aux du
        par plus ou mais être été nous vous ils elle leur comme tout aussi peut fait entre sans
        très""",
    "es": """el los las del es una en por con para que se no su sus al lo como más pero este
        esta estos son está también entre cuando muy sin sobre ser hay fue donde desde hasta""",
    "pt": """os as do da dos das é um uma em no na nos nas para com não que se por mais
        como mas ao aos seu sua são está também entre quando muito sem sobre ser há foi onde
        pelo pela""",
}
_VOCAB: dict[str, tuple[Language, ...]] = {}
for _lang, _text in _WORDS.items():
    for _word in _text.split():
        _VOCAB[_word] = (*_VOCAB.get(_word, ()), _lang)

FUNCTION_WORDS = frozenset(_VOCAB)
_WORD = re.compile(r"\w+", re.UNICODE)
# Thai is told by its script, not by words: it writes none apart. Its letters only (not its
# vowel signs and tone marks), against every letter.
_THAI = re.compile(char_class(*THAI_LETTERS))
_LETTER = re.compile(r"[^\W\d_]")
THAI_SHARE = 0.3  # of a text's letters: Thai prose with English terms in it is still Thai
# Chinese, Japanese and Korean are told as Thai is, by their letters together (one index and
# one analyzer for the three): a Han character or a Hangul syllable says as much as a few
# Latin letters, so their prose with English terms in it is theirs, and an English note
# quoting a name of theirs is not.
_CJK = regex.compile(CJK_LETTER, regex.V1)
CJK_SHARE = 0.3  # of a text's letters, as THAI_SHARE
# Russian and Arabic by their scripts, as Thai: a Cyrillic or Arabic note with English terms in
# it is theirs, an English note quoting a name of theirs is not.
_CYRILLIC = regex.compile(CYRILLIC_LETTER, regex.V1)
_ARABIC = regex.compile(ARABIC_LETTER, regex.V1)
SCRIPT_SHARE = 0.3  # of a text's letters, as THAI_SHARE
MIN_HITS = 2  # function words a text needs before its language is told
MARGIN = 1.25  # the winner's count over the runner-up's
SAMPLE_CHARS = 20_000  # a note's first characters suffice; a long note costs no more


def _function_word_counts(text: str) -> Counter[Language]:
    """How many function words of each language the start of ``text`` holds."""
    sample = unicodedata.normalize("NFC", text[:SAMPLE_CHARS]).casefold()
    counts: Counter[Language] = Counter()
    for word in _WORD.findall(sample):
        for lang in _VOCAB.get(word, ()):
            counts[lang] += 1
    return counts


def function_languages(text: str) -> set[Language]:
    """The languages any function word of ``text`` belongs to (a short question's hint);
    Thai by its script."""
    found: set[Language] = set(_function_word_counts(text))
    return found | {"th"} if _THAI.search(text) else found


def leading_language(text: str) -> Language | None:
    """The language more of ``text``'s function words belong to than any other's, or None
    (none, or two tied): a short question's own language, which a single word another language
    also has ("die", "son", "car" in an English question) does not outvote."""
    ranked = _function_word_counts(text).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def _mostly(script: re.Pattern[str] | regex.Pattern[str], share: float, text: str) -> bool:
    """Whether at least ``share`` of the letters of ``text``'s start are ``script``'s."""
    sample = text[:SAMPLE_CHARS]
    if script.search(sample) is None:  # nearly every note: no count at all
        return False
    return len(script.findall(sample)) >= share * len(_LETTER.findall(sample))


def detect(text: str) -> Language | None:
    """The language of ``text``, or None when it cannot be told (too short, another
    language, or two languages nearly tied)."""
    if _mostly(_THAI, THAI_SHARE, text):
        return "th"
    if _mostly(_CJK, CJK_SHARE, text):
        return "cjk"
    if _mostly(_CYRILLIC, SCRIPT_SHARE, text):
        return "ru"
    if _mostly(_ARABIC, SCRIPT_SHARE, text):
        return "ar"
    counts = _function_word_counts(text)
    ranked = counts.most_common(2)
    if not ranked or ranked[0][1] < MIN_HITS:
        return None
    if len(ranked) == 2 and ranked[0][1] < MARGIN * ranked[1][1]:
        return None
    return ranked[0][0]


def note_language(text: str, setting: str, default: Language) -> Language:
    """The language a note is indexed in: the setting when it names one, else detected from
    the note's text, else ``default``."""
    if setting in ANALYZERS:
        return setting
    return detect(text) or default


def setting_key(setting: str, default: str) -> str:
    """What a note's language was decided by, stored on the note: a sync rewrites the notes
    written under another setting, so changing it leaves no note in the old index."""
    return f"auto/{default}" if setting == "auto" else setting
