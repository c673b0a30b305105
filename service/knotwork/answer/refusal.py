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
# notes do not hold *enough*: "the notes do not say when [S1]" is an answer (cited: _LACKS).
_ENOUGH_DE = r"(?:genug|genügend|ausreichend\w*)"
# What models call the notes: "Your notes", "The (provided) context", "The information given".
_SUBJECT = r"(?:(?:provided|given|available|retrieved|supplied) )?(?:notes|context|information)"
_REFUSALS = tuple(
    re.compile(rf"{core}(?:\w+ ){{0,2}}?{enough}(?: |$)")
    for core, enough in (
        (
            rf"{_SUBJECT} (?:do|does) not (?:contain|have|hold|include|provide) ",
            r"(?:enough|sufficient)",
        ),
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
        "sorry", "i", "m", "am", "afraid", "unfortunately", "but", "answer", "however",
        "purtroppo", "mi", "dispiace", "spiacente", "ma", "risposta",
        "leider", "tut", "es", "mir", "leid", "aber", "antwort",
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
    {"but", "however", "though", "although", "yet", "ma", "però", "tuttavia", "eppure", "aber",
     "jedoch", "doch", "dennoch", "mais", "cependant", "pourtant", "toutefois", "pero",
     "embargo", "aunque", "porém", "contudo", "mas", "entanto"}
)  # fmt: skip
_CLAIM = 2  # words after a contrast that make a claim ("…, yet Alice works at Acme")
_SENTENCE_END = frozenset(".;:!?")  # what ends the refusal's sentence ("," does not)

# Other ways a model says it has no answer, recognised only in a reply that cites nothing (one
# that cites and answers is an answer): "I don't know", "I cannot help with that", "The
# (provided) context does not mention …", "There is no information about this", as in the
# vault languages. Matched after the openers, so without the "I" ("je", "mi dispiace") before.
_VERBS = r"(?:know|help|assist|answer|find|say|tell|determine|provide|see)"
_LACKS = tuple(
    re.compile(rf"{lack}(?: |$)")
    for lack in (
        rf"(?:do|can|could|will|would|am|m) not (?:be able to )?(?:\w+ )?{_VERBS}",
        rf"(?:unable|not able) to (?:\w+ )?{_VERBS}",
        r"do not have (?:\w+ ){0,2}?(?:information|context|data|details)",
        rf"(?:{_SUBJECT}|(?:the )?(?:documents?|sources?|text|passages?|excerpts?)) "
        r"(?:do|does|did) not (?:\w+ )?(?:mention|say|state|specify|contain|include|provide|"
        r"give|cover|answer|address|tell|explain|indicate|have|hold|show)",
        r"(?:there (?:is|are|was|were) )?no (?:\w+ )?(?:information|mention|details?|data|"
        r"evidence|record|indication)",
        r"non (?:lo )?so",  # it
        r"non (?:posso|riesco a) (?:\w+ )?(?:rispondere|aiutare|dire)",
        r"(?:non (?:ci sono|c è|ho|trovo) |(?:nessuna|nessun) )(?:\w+ )?(?:informazion[ei]|dati|"
        r"dettagli|menzione)",
        r"(?:ich )?weiss (?:ich )?(?:es |das )?nicht",  # de ("weiß", casefolded)
        r"(?:ich )?kann (?:\w+ ){0,3}?nicht (?:\w+ )?(?:beantworten|helfen|sagen)",
        r"(?:gibt |habe |finde )?(?:ich )?keine (?:\w+ )?(?:informationen|angaben|hinweise|daten)",
        r"ne (?:le )?sais pas",  # fr
        r"ne (?:peux|puis) pas (?:\w+ )?(?:répondre|aider|dire)",
        r"(?:il )?(?:n y a |ne trouve )?(?:aucune|pas d|pas de) (?:\w+ )?(?:informations?|"
        r"mention|détails|données)",
        r"no (?:lo )?sé",  # es
        r"no (?:puedo|es posible) (?:\w+ )?(?:responder|ayudar|contestar|decir)",
        r"no (?:hay|encuentro|tengo) (?:\w+ )?(?:información|datos|detalles|mención)",
        r"não (?:o )?sei",  # pt
        r"não (?:posso|consigo) (?:\w+ )?(?:responder|ajudar|dizer)",
        r"não (?:há|existe|existem|tenho|encontro) (?:\w+ )?(?:informaç(?:ão|ões)|dados|"
        r"detalhes|menção)",
    )
)


_MARKS = frozenset(".;:!?,")  # kept as words of their own: "enough;" ends what is not enough


def _words(text: str) -> list[str]:
    text = text.casefold().replace("\u2019", "'").replace("can't", "can not")
    text = text.replace("cannot", "can not").replace("won't", "will not").replace("n't", " not")
    return re.findall(r"\d+(?:[.,]\d+)+|\w+|[.;:!?,]", text)  # "2.5" is no sentence end


def says_insufficient(text: str, cited: bool = False) -> bool:
    """The reply is the fixed sentence for a context that does not hold the answer, however
    worded: it opens with a refusal's core and its sentence says little after it. A reply that
    answers first and then says what is missing ("Alice works with Bob. Your notes do not
    contain enough to say since when") is an answer; so is one that cites and answers after
    the refusal's sentence or a contrast ("…enough to say when. Alice works at Acme [S1]").
    One that cites nothing is also a refusal when it opens with "I don't know", "I cannot
    help", "the context does not mention …" or "there is no information …"."""
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
            return _alone(after, cited)
    for lack in () if cited else _LACKS:
        if found := lack.match(rest):
            return _alone(rest[found.end() :].split(), cited)
    return False


def _alone(after: list[str], cited: bool) -> bool:
    """Whether the refusal stands alone, given the words after its core: its sentence says
    little more, and, in a reply that cites, no answer follows it (another sentence, or a claim
    after a contrast word)."""
    end = next((i for i, w in enumerate(after) if w in _SENTENCE_END), len(after))
    said = [w for w in after[:end] if w not in _MARKS]
    if len(said) > _AFTER_CORE:
        return False
    if not cited:
        return True
    if any(w not in _MARKS for w in after[end:]):
        return False
    contrast = next((i for i, w in enumerate(said) if w in _CONTRAST), len(said))
    return len(said) - contrast - 1 < _CLAIM
