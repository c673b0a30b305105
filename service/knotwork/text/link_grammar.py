"""The grammar words the relation vocabulary reads around its link phrases (``text/vocab.py``,
``text/link_phrases.py``): per language, the contracted forms of a phrase's last preposition
(the article fused in: "del", "zum", "au"), and the conjunctions and articles that may stand
between two links. Plain data, no logic.
"""

from __future__ import annotations

# A phrase ending in one of these prepositions also matches its contracted forms.
CONTRACTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {},
    "it": {
        "di": ("di", "del", "della", "dello", "dei", "degli", "delle", "dell'"),
        "a": ("a", "al", "alla", "allo", "ai", "agli", "alle", "all'"),
        "da": ("da", "dal", "dalla", "dallo", "dai", "dagli", "dalle", "dall'"),
        "in": ("in", "nel", "nella", "nello", "nei", "negli", "nelle", "nell'"),
        "su": ("su", "sul", "sulla", "sullo", "sui", "sugli", "sulle", "sull'"),
        "con": ("con", "col", "coi"),
    },
    "de": {"in": ("in", "im"), "an": ("an", "am"), "zu": ("zu", "zum", "zur"),
           "bei": ("bei", "beim"), "von": ("von", "vom")},
    "fr": {"de": ("de", "du", "des", "de la", "de l'", "d'"),
           "à": ("à", "au", "aux", "à la", "à l'")},
    "es": {"de": ("de", "del"), "a": ("a", "al")},
    "pt": {"de": ("de", "do", "da", "dos", "das"),
           "em": ("em", "no", "na", "nos", "nas", "num", "numa"),
           "a": ("a", "ao", "à", "aos", "às"),
           "por": ("por", "pelo", "pela", "pelos", "pelas")},
}  # fmt: skip

# What may stand between two links for the second to inherit the first one's relation.
SEPARATOR_WORDS = (
    "and", "or", "as well as", "plus", "also", "the", "an", "a",
    "e", "ed", "o", "od", "oppure", "anche", "il", "lo", "la", "i", "gli", "le",
    "und", "oder", "sowie", "auch", "der", "die", "das", "den", "dem",
    "et", "ou", "ainsi que", "aussi", "les", "l'",
    "y", "u", "ni", "también", "el", "los", "las",
    "além de", "bem como", "também", "os", "as",
)  # fmt: skip
