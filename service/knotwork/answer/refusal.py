"""A refusal: the fixed sentence the prompt asks for when the context does not hold the answer,
and how a reply is recognised as one however the model words it."""

from __future__ import annotations

import re

INSUFFICIENT = "Your notes do not contain enough to answer this."

# The fixed sentence's core as models write it, in English ("don't", "enough information") and,
# though the prompt asks for English, as they translate it for a question in another of the
# vault languages: the notes, their verb "contain" negated (German also inverted, "Leider
# enthalten deine Notizen nicht …"), then within two words ("d'informations", "lo", "o") a word
# for "enough" ("suffisamment", "informações suficientes", "ausreichend"). Each core says the
# notes do not hold *enough*: "the notes do not say when" is an answer.
_ENOUGH_DE = r"(?:genug|genügend|ausreichend\w*)"
_REFUSALS = tuple(
    re.compile(rf"{core}(?:\w+ ){{0,2}}?{enough}(?: |$)")
    for core, enough in (
        (r"notes (?:do|does) not (?:contain|have|hold|include) ", r"(?:enough|sufficient)"),
        (
            r"note non (?:contengono|hanno|riportano) ",
            r"(?:abbastanza|sufficient\w*|a sufficienza)",
        ),
        (r"notizen enthalten (?:nicht|keine\w*) ", _ENOUGH_DE),
        (r"enthalten (?:deine|ihre|die|eure) notizen (?:nicht|keine\w*) ", _ENOUGH_DE),
        (r"notes ne contiennent pas ", r"(?:assez|suffisa\w*)"),
        (r"notas no (?:contienen|tienen|incluyen) ", r"(?:suficiente|suficientes)"),
        (
            r"notas não (?:contêm|contém|têm|possuem|incluem) ",
            r"(?:suficiente|suficientes|bastante)",
        ),
    )
)
# Words a refusal may open with before its core: "Your notes …", "Le tue note …", and the
# apology or label a model puts first ("I'm sorry, but your notes …", "Leider …", "Answer: …").
_OPENERS = frozenset(
    [
        "your", "the", "le", "tue", "deine", "ihre", "die", "vos", "tes", "les", "tus", "sus",
        "las", "as", "tuas", "suas", "os",
        "sorry", "i", "m", "am", "afraid", "unfortunately", "but", "answer",
        "purtroppo", "mi", "dispiace", "spiacente", "ma", "risposta",
        "leider", "tut", "es", "mir", "aber", "antwort",
        "désolé", "désolée", "malheureusement", "je", "suis", "réponse",
        "lo", "siento", "lamentablemente", "desafortunadamente", "pero", "respuesta",
        "desculpe", "infelizmente", "lamento", "resposta",
    ]
)  # fmt: skip
_AFTER_CORE = 8  # words after the core that still make the reply the sentence alone
# What "enough" is of, in a refusal: nothing, or the information, details or context to answer
# ("enough to answer", "suffisamment d'informations", "informazioni sufficienti per"). Any
# other word makes it an answer about something there is not enough of ("the notes do not have
# enough sustain in the second bar", "do not include sufficient collateral").
_AFTER_ENOUGH = frozenset(
    {"to", "about", "on", "for", "information", "info", "detail", "details", "context", "data",
     "facts", "evidence", "here", "this", "that", "it", "the", "in",
     "per", "su", "sul", "sulla", "sullo", "a", "da", "informazioni", "dettagli", "contesto",
     "dati", "elementi", "questa", "questo",
     "um", "über", "zu", "zur", "zum", "informationen", "angaben", "kontext", "daten",
     "hinweise", "diese", "dazu", "darüber", "hier",
     "d", "de", "des", "pour", "sur", "informations", "détails", "contexte", "données",
     "éléments", "cette", "ce", "ici",
     "para", "sobre", "información", "detalles", "contexto", "datos", "esta", "este", "aquí",
     "informação", "informações", "detalhes", "dados", "essa", "esse", "aqui", "nas", "nos"}
)  # fmt: skip
# "…not enough detail, but Alice joined Acme in 2020": what follows such a word is an answer.
_CONTRAST = frozenset(
    {"but", "however", "though", "although", "ma", "però", "tuttavia", "aber", "jedoch",
     "cependant", "pero", "embargo", "porém", "contudo"}
)  # fmt: skip


_MARKS = frozenset(".;:!?,")  # kept as words of their own: "enough;" ends what is not enough


def _words(text: str) -> list[str]:
    text = text.casefold().replace("\u2019", "'").replace("n't", " not")
    return re.findall(r"\w+|[.;:!?,]", text)


def says_insufficient(text: str, cited: bool = False) -> bool:
    """The reply is the fixed sentence for a context that does not hold the answer, however
    worded: it opens with a refusal's core and says little after it. A reply that answers first
    and then says what is missing ("Alice works with Bob. Your notes do not contain enough to
    say since when") is an answer."""
    words = _words(text)
    start = 0
    while start < len(words) and (words[start] in _OPENERS or words[start] in _MARKS):
        start += 1
    rest = " ".join(words[start:])
    for core in _REFUSALS:
        if found := core.match(rest):
            after = rest[found.end() :].split()
            if after and after[0] not in _AFTER_ENOUGH and after[0] not in _MARKS:
                return False  # enough of something else: "… enough sustain in the bar"
            said = [w for w in after if w not in _MARKS]
            # "…, but Alice joined Acme [S1]": an answer after a contrast, if it cites.
            return len(said) <= _AFTER_CORE and not (cited and _CONTRAST.intersection(said))
    return False
