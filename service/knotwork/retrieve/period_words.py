"""The words that place a month or season in time, per language (``retrieve.periods`` reads
them): the names of months and seasons, the modifiers written before and after a name ("last
March", "marzo scorso"), the relative years after a month ("March last year") and the words
that join them, and the prepositions of time before a bare name ("in March"). Plain data;
the patterns built from them pair a modifier only with a name of its own language.
"""

from __future__ import annotations

from knotwork.text.language import Language

MONTH_NAMES: dict[Language, str] = {
    "en": "january february march april may june july august september october november december",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre "
    "dicembre",
    "de": "januar jänner februar märz april mai juni juli august september oktober november "
    "dezember",
    "fr": "janvier février fevrier mars avril mai juin juillet août aout septembre octobre "
    "novembre décembre decembre",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre "
    "noviembre diciembre",
    "pt": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro "
    "dezembro",
}
# Each season's first month; each lasts three months.
SEASONS: dict[Language, dict[str, int]] = {
    "en": {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12},
    "it": {"primavera": 3, "estate": 6, "autunno": 9, "inverno": 12},
    "de": {"frühling": 3, "frühjahr": 3, "sommer": 6, "herbst": 9, "winter": 12},
    "fr": {"printemps": 3, "été": 6, "automne": 9, "hiver": 12},
    "es": {"primavera": 3, "verano": 6, "otoño": 9, "invierno": 12},
    "pt": {"primavera": 3, "verão": 6, "outono": 9, "inverno": 12},
}
_LAST, _THIS, _NEXT = -1, 0, 1


def _forms(stems: str, endings: str, offset: int) -> dict[str, int]:
    return {stem + end: offset for stem in stems.split() for end in endings.split()}


# Modifiers written before the name, and after it, by language → -1 last, 0 this, +1 next.
BEFORE: dict[Language, dict[str, int]] = {
    "en": {"last": _LAST, "past": _LAST, "previous": _LAST, "this": _THIS, "next": _NEXT,
           "coming": _NEXT},
    "it": {"scorso": _LAST, "scorsa": _LAST, "passato": _LAST, "passata": _LAST,
           "questo": _THIS, "questa": _THIS, "quest'": _THIS, "prossimo": _NEXT,
           "prossima": _NEXT},
    "de": {**_forms("letzt vergangen vorig", "e en er es", _LAST),
           **_forms("dies", "e en er es", _THIS), **_forms("nächst kommend", "e en er es", _NEXT)},
    "fr": {"ce": _THIS, "cet": _THIS, "cette": _THIS},
    "es": {"pasado": _LAST, "pasada": _LAST, "este": _THIS, "esta": _THIS, "próximo": _NEXT,
           "próxima": _NEXT},
    "pt": {"passado": _LAST, "passada": _LAST, "este": _THIS, "esta": _THIS, "neste": _THIS,
           "nesta": _THIS, "próximo": _NEXT, "próxima": _NEXT},
}  # fmt: skip
AFTER: dict[Language, dict[str, int]] = {
    "en": {},
    "it": {"scorso": _LAST, "scorsa": _LAST, "passato": _LAST, "passata": _LAST,
           "prossimo": _NEXT, "prossima": _NEXT},
    "de": {},
    "fr": {"dernier": _LAST, "dernière": _LAST, "passé": _LAST, "passée": _LAST,
           "prochain": _NEXT, "prochaine": _NEXT},
    "es": {"pasado": _LAST, "pasada": _LAST, "próximo": _NEXT, "próxima": _NEXT,
           "que viene": _NEXT},
    "pt": {"passado": _LAST, "passada": _LAST, "próximo": _NEXT, "próxima": _NEXT,
           "que vem": _NEXT},
}  # fmt: skip
# A relative year after a month ("March last year", "März letzten Jahres"), with the words
# that may join them.
YEARS: dict[Language, dict[str, int]] = {
    "en": {"last year": _LAST, "this year": _THIS, "next year": _NEXT},
    "it": {"anno scorso": _LAST, "scorso anno": _LAST, "anno passato": _LAST,
           "quest'anno": _THIS, "anno prossimo": _NEXT, "prossimo anno": _NEXT},
    "de": {**_forms("letzt vergangen vorig", "es en", _LAST), **_forms("dies", "es en", _THIS),
           **_forms("nächst kommend", "es en", _NEXT)},
    "fr": {"année dernière": _LAST, "an dernier": _LAST, "an passé": _LAST,
           "année passée": _LAST, "cette année": _THIS, "année prochaine": _NEXT,
           "an prochain": _NEXT},
    "es": {"año pasado": _LAST, "este año": _THIS, "año que viene": _NEXT,
           "próximo año": _NEXT},
    "pt": {"ano passado": _LAST, "este ano": _THIS, "deste ano": _THIS, "ano que vem": _NEXT,
           "próximo ano": _NEXT},
}  # fmt: skip
YEAR_WORD: dict[Language, str] = {"de": r"\s+jahr(?:es|e)?"}  # "letzten Jahres": the stem above
JOINERS: dict[Language, str] = {
    "en": r"(?:of\s+|in\s+)?",
    "it": r"(?:dell'|dello\s+|del\s+|di\s+quest'|di\s+questo\s+)?",
    "de": r"(?:des\s+|im\s+)?",
    "fr": r"(?:de\s+l'|de\s+cette\s+|l'|de\s+)?",
    "es": r"(?:del\s+|de\s+este\s+|de\s+)?",
    "pt": r"(?:do\s+|de\s+)?",
}


# Prepositions of time before a month or season with no modifier and no year; English "the"
# only before a season ("in the summer"; "in the March issue" names an issue).
BARE: dict[Language, str] = {
    "en": r"in|during|in\s+the|during\s+the|over\s+the",
    "it": r"a|ad|in|d'|durante\s+l'|durante\s+il|nel\s+mese\s+di",
    "de": r"im",
    "fr": r"en|au|pendant\s+l'|pendant\s+le|au\s+mois\s+de|au\s+mois\s+d'",
    "es": r"en|en\s+el|durante|durante\s+el|en\s+el\s+mes\s+de",
    "pt": r"em|no|na|durante\s+o|durante\s+a|no\s+mês\s+de",
}
