"""The fixed relation vocabulary, and the per-language tables that map wording onto it.

Relationship types cannot be Cypher parameters, so every type the graph may hold is listed here
and anything else collapses to ``GENERIC``: no text from a note ever becomes a type name. The
phrase tables (``text/link_phrases.py``, their grammar words ``text/link_grammar.py``) and key
tables are plain data (EN, IT, DE, FR, ES, PT), compiled once at import.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from knotwork.text.link_grammar import CONTRACTIONS, SEPARATOR_WORDS
from knotwork.text.link_phrases import LINK_PHRASES

GENERIC = "RELATED_TO"
LINKS_TO = "LINKS_TO"
LANGUAGES = ("en", "it", "de", "fr", "es", "pt")

RELATIONS: frozenset[str] = frozenset(
    {
        "LINKS_TO", "EMBEDS", "MENTIONS", "HAS_ALIAS", "HAS_TAG", "RELATED_TO", "HAS_PROPERTY",
        "WORKS_WITH", "WORKS_AT", "WORKS_ON", "REPORTS_TO", "MANAGES", "MEMBER_OF", "PART_OF",
        "BELONGS_TO", "HAS_PARENT", "HAS_ROLE", "HAS_STATUS", "HAS_PARTICIPANT",
        "HAS_RESPONSIBLE", "HAS_LICENSE", "LOCATED_IN", "HAS_DATE", "HAS_BUDGET", "HAS_DURATION",
        "HAS_AUTHOR", "CREATED_BY", "DEPENDS_ON", "USES", "KNOWS", "FRIEND_OF", "MARRIED_TO",
        "CHILD_OF", "PARENT_OF", "BORN_IN", "DIED_IN", "STUDIED_AT", "FOUNDED", "LEADS",
        "SUPERSEDES", "SEE_ALSO", "HAS_CATEGORY", "HAS_TYPE", "HAS_PRIORITY", "HAS_CLIENT",
        "HAS_OWNER",
    }
)  # fmt: skip

_RELATION_NAME = re.compile(r"^[A-Z][A-Z0-9_]{0,49}$")
assert all(_RELATION_NAME.match(r) for r in RELATIONS) and GENERIC in RELATIONS


def safe_relation(name: str) -> str:
    """Map a free-form name onto the vocabulary, so a type name is never taken from input."""
    key = re.sub(r"[\s\-]+", "_", name.strip()).upper()
    return key if key in RELATIONS else GENERIC


_TOKEN = re.compile(r"\w+'?|[^\w\s]")
_PUNCTUATION_SEPARATORS = (",", ";", "&", "/", "+", "-", "\u2013", "\u2014")


def tokens(text: str, fold: bool = True) -> list[str]:
    """Case-folded NFC words (an elided article keeps its apostrophe) and punctuation marks;
    with ``fold`` False, the same tokens as written."""
    nfc = unicodedata.normalize("NFC", text).replace("\u2019", "'")
    return [t.casefold() if fold else t for t in _TOKEN.findall(nfc)]


def _phrase_forms(phrase: str, lang: str) -> list[tuple[str, ...]]:
    *head, last = phrase.split()
    forms = CONTRACTIONS[lang].get(last, (last,)) if head else (last,)
    return [tuple(tokens(" ".join([*head, form]))) for form in forms]


def _phrase_index() -> dict[tuple[str, ...], str]:
    index: dict[tuple[str, ...], str] = {}
    for lang in LANGUAGES:
        for relation, phrases in LINK_PHRASES[lang].items():
            for phrase in phrases:
                for form in _phrase_forms(phrase, lang):
                    index.setdefault(form, relation)
    return index


_PHRASE_INDEX = _phrase_index()
_MAX_PHRASE = max(map(len, _PHRASE_INDEX))
_SEPARATOR_INDEX = frozenset(tuple(tokens(s)) for s in SEPARATOR_WORDS + _PUNCTUATION_SEPARATORS)
_MAX_SEPARATOR = max(map(len, _SEPARATOR_INDEX))
assert set(_PHRASE_INDEX.values()) <= RELATIONS


def phrase_at(words: Sequence[str], end: int) -> tuple[str, int] | None:
    """(relation, first word's index) of the longest phrase ending just before ``end``."""
    for size in range(min(_MAX_PHRASE, end), 0, -1):
        relation = _PHRASE_INDEX.get(tuple(words[end - size : end]))
        if relation is not None:
            return relation, end - size
    return None


def phrase_relation(text: str) -> str | None:
    """The relation of the phrase ending closest to the end of ``text`` (longest on a tie)."""
    words = tokens(text)
    found = next(filter(None, (phrase_at(words, end) for end in range(len(words), 0, -1))), None)
    return found[0] if found else None


def only_separators(text: str) -> bool:
    """Whether ``text`` holds nothing but what may stand between two listed links."""
    words, i = tokens(text), 0
    while i < len(words):
        for size in range(min(_MAX_SEPARATOR, len(words) - i), 0, -1):
            if tuple(words[i : i + size]) in _SEPARATOR_INDEX:
                i += size
                break
        else:
            return False
    return True


# Frontmatter keys that name a relation, per relation (keys are matched case-, accent- and
# separator-insensitively). Keys that are not relations (title, aliases, ...) map to None.
FRONTMATTER_KEYS: dict[str, list[str]] = {
    "HAS_ROLE": ["role", "roles", "ruolo", "rolle", "rôle", "rol", "papel", "função"],
    "HAS_STATUS": ["status", "stato", "stand", "statut", "estado", "situação"],
    "HAS_PARTICIPANT": ["participants", "participant", "attendees", "partecipanti",
                        "teilnehmer", "participantes", "partecipante"],
    "HAS_RESPONSIBLE": ["responsible", "responsabile", "verantwortlich", "responsable",
                        "responsável", "assignee", "referente"],
    "HAS_OWNER": ["owner", "owners", "proprietario", "eigentümer", "besitzer",
                  "propriétaire", "propietario", "proprietário", "dono"],
    "HAS_LICENSE": ["license", "licence", "licenza", "lizenz", "licencia", "licença"],
    "LOCATED_IN": ["location", "place", "luogo", "sede", "ort", "standort", "lieu",
                   "ubicación", "lugar", "localização", "local", "city", "città", "stadt",
                   "ville", "ciudad", "cidade"],
    "HAS_TAG": ["tags", "tag"],
    "HAS_DATE": ["date", "data", "datum", "fecha", "created", "updated", "modified",
                 "creato", "aggiornato", "erstellt", "créé", "creado", "criado", "due",
                 "deadline", "scadenza", "frist", "échéance", "plazo", "prazo"],
    "HAS_BUDGET": ["budget", "bilancio", "presupuesto", "orçamento"],
    "HAS_DURATION": ["duration", "durata", "dauer", "durée", "duración", "duração"],
    "WORKS_ON": ["project", "projects", "progetto", "progetti", "projekt", "projet",
                 "proyecto", "projeto"],
    "BELONGS_TO": ["belongs-to", "part-of", "appartiene", "appartiene-a", "gehört-zu",
                   "fait-partie", "fait-partie-de", "pertenece", "pertenece-a", "pertence",
                   "pertence-a", "parte-di"],
    "HAS_PARENT": ["parent", "up", "genitore", "eltern"],
    "HAS_AUTHOR": ["author", "authors", "autore", "autori", "autor", "autoren", "auteur",
                   "autores"],
    "HAS_TYPE": ["type", "tipo", "typ"],
    "HAS_CATEGORY": ["category", "categories", "categoria", "kategorie", "catégorie",
                     "categoría"],
    "HAS_PRIORITY": ["priority", "priorità", "priorität", "priorité", "prioridad",
                     "prioridade"],
    "HAS_CLIENT": ["client", "customer", "cliente", "kunde"],
    "WORKS_AT": ["company", "employer", "organization", "organisation", "azienda", "firma",
                 "unternehmen", "entreprise", "empresa"],
    "REPORTS_TO": ["manager", "reports-to", "boss", "capo", "responsabile-diretto",
                   "vorgesetzter", "supérieur", "jefe", "chefe"],
    "MEMBER_OF": ["team", "squadra", "équipe", "equipo", "equipe", "group", "gruppo",
                  "gruppe", "groupe", "grupo"],
    "DEPENDS_ON": ["depends-on", "dipende-da", "dependencies", "dipendenze"],
    "SEE_ALSO": ["see-also", "vedi-anche", "siehe-auch", "voir-aussi", "ver-también"],
    "RELATED_TO": ["related", "correlati", "correlato", "verwandt", "lié", "liés",
                   "relacionado", "relacionados", "links"],
}  # fmt: skip

# Frontmatter keys that describe the note itself, never a relation or a property fact: the one
# list both the relation lookup and the structural facts read. (Tags are facts of their own,
# HAS_TAG, and the only relation such a key has.)
NOTE_KEYS = frozenset(
    {
        "title",
        "aliases",
        "alias",
        "cssclass",
        "cssclasses",
        "publish",
        "permalink",
        "position",
    }
)


def _norm_key(key: str) -> str:
    decomposed = unicodedata.normalize("NFKD", key.casefold())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"[\s_\-]+", "-", bare.strip())


_KEY_RELATIONS: dict[str, str] = {
    _norm_key(k): rel for rel, keys in FRONTMATTER_KEYS.items() for k in keys
}
_NOTE_KEY_NORMS = frozenset(_norm_key(k) for k in NOTE_KEYS)
assert set(_KEY_RELATIONS.values()) <= RELATIONS


def frontmatter_relation(key: str) -> str | None:
    """The relation a frontmatter key expresses, or None for non-relation and unknown keys."""
    norm = _norm_key(key)
    return None if norm in _NOTE_KEY_NORMS else _KEY_RELATIONS.get(norm)


def describes_note(key: str) -> bool:
    """Whether a frontmatter key describes the note itself (title, aliases, tags …), so that
    its values are no property facts."""
    norm = _norm_key(key)
    return norm in _NOTE_KEY_NORMS or _KEY_RELATIONS.get(norm) == "HAS_TAG"


# Month names and usual abbreviations in the six languages, lower case, for date parsing.
MONTHS: dict[str, int] = {
    # English
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    # Italian
    "gennaio": 1, "febbraio": 2, "marzo": 3, "aprile": 4, "maggio": 5, "giugno": 6,
    "luglio": 7, "agosto": 8, "settembre": 9, "ottobre": 10, "novembre": 11, "dicembre": 12,
    "gen": 1, "genn": 1, "febb": 2, "mag": 5, "giu": 6, "lug": 7, "ago": 8, "set": 9,
    "sett": 9, "ott": 10, "dic": 12,
    # German
    "januar": 1, "jänner": 1, "februar": 2, "märz": 3, "maerz": 3, "mai": 5, "juni": 6,
    "juli": 7, "oktober": 10, "dezember": 12, "jän": 1, "mär": 3, "okt": 10, "dez": 12,
    # French
    "janvier": 1, "février": 2, "fevrier": 2, "mars": 3, "avril": 4, "juin": 6,
    "juillet": 7, "août": 8, "aout": 8, "septembre": 9, "octobre": 10, "décembre": 12,
    "decembre": 12, "janv": 1, "févr": 2, "fevr": 2, "avr": 4, "juil": 7, "déc": 12,
    # Spanish
    "enero": 1, "febrero": 2, "abril": 4, "mayo": 5, "junio": 6, "julio": 7,
    "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
    "ene": 1, "abr": 4,
    # Portuguese
    "janeiro": 1, "fevereiro": 2, "março": 3, "marco": 3, "maio": 5, "junho": 6,
    "julho": 7, "setembro": 9, "outubro": 10, "novembro": 11, "dezembro": 12, "fev": 2,
    "out": 10,
}  # fmt: skip
