"""The fixed relation vocabulary, and the per-language tables that map wording onto it.

Relationship types cannot be Cypher parameters, so every type the graph may hold is listed here
and anything else collapses to ``GENERIC``: no text from a note ever becomes a type name. The
phrase and key tables are plain data (EN, IT, DE, FR, ES, PT), compiled once at import.
"""

from __future__ import annotations

import re
import unicodedata

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


# Words on a line before a link that say what the link means. A multi-word phrase whose last
# word is a preposition also matches that preposition's contracted forms (see _CONTRACTIONS).
LINK_PHRASES: dict[str, dict[str, list[str]]] = {
    "en": {
        "WORKS_WITH": ["works with", "worked with", "working with", "work with",
                       "collaborates with", "collaborated with", "collaborating with",
                       "partners with", "partnered with", "teamed up with"],
        "REPORTS_TO": ["reports to", "reported to", "reporting to", "managed by",
                       "supervised by", "reports directly to"],
        "MANAGES": ["manages", "managed", "managing", "supervises", "oversees", "manager of"],
        "HAS_RESPONSIBLE": ["led by", "headed by", "coordinated by", "run by"],
        "PART_OF": ["part of", "component of", "subproject of", "section of"],
        "MEMBER_OF": ["member of", "members of", "joined"],
        "LOCATED_IN": ["located in", "located at", "based in", "based at", "lives in",
                       "lived in", "living in", "situated in", "headquartered in", "resides in"],
        "WORKS_AT": ["works at", "worked at", "working at", "works for", "worked for",
                     "working for", "employed at", "employed by", "employee of", "hired by"],
        "WORKS_ON": ["works on", "worked on", "working on", "contributes to", "contributed to",
                     "contributing to"],
        "DEPENDS_ON": ["depends on", "depended on", "depending on", "relies on", "requires",
                       "built on top of"],
        "USES": ["uses", "using", "utilizes", "built with", "powered by"],
        "HAS_AUTHOR": ["authored by", "written by", "composed by"],
        "CREATED_BY": ["created by", "made by", "built by", "developed by", "designed by",
                       "invented by", "founded by"],
        "MARRIED_TO": ["married to", "married", "wife of", "husband of", "spouse of"],
        "CHILD_OF": ["child of", "son of", "daughter of"],
        "PARENT_OF": ["parent of", "father of", "mother of"],
        "BORN_IN": ["born in", "born at"],
        "DIED_IN": ["died in", "died at", "passed away in"],
        "STUDIED_AT": ["studied at", "studies at", "studying at", "graduated from",
                       "alumnus of", "alumna of"],
        "FOUNDED": ["founded", "co-founded", "cofounded", "founder of", "co-founder of"],
        "LEADS": ["leads", "led", "leading", "heads", "head of", "leader of", "in charge of"],
        "SUPERSEDES": ["supersedes", "replaces", "obsoletes", "successor of", "successor to"],
        "SEE_ALSO": ["see also", "see", "cf.", "compare with"],
        "BELONGS_TO": ["belongs to", "belonged to", "belonging to"],
        "KNOWS": ["knows", "knew", "acquainted with"],
        "FRIEND_OF": ["friend of", "friends with", "friends of"],
        "HAS_OWNER": ["owned by"],
        "HAS_PARTICIPANT": ["attended by"],
        "RELATED_TO": ["related to", "relates to", "connected to", "associated with"],
    },
    "it": {
        "WORKS_WITH": ["lavora con", "lavorava con", "lavorano con", "lavoravano con",
                       "lavorato con", "lavorerà con", "lavorando con", "collabora con",
                       "collaborava con", "collaborano con", "collaborato con"],
        "REPORTS_TO": ["riporta a", "riportava a", "riferisce a", "gestito da", "gestita da",
                       "supervisionato da", "supervisionata da"],
        "MANAGES": ["gestisce", "gestiva", "gestiscono", "coordina", "coordinava",
                    "supervisiona", "responsabile di"],
        "HAS_RESPONSIBLE": ["guidato da", "guidata da", "diretto da", "diretta da",
                            "coordinato da", "coordinata da"],
        "PART_OF": ["parte di", "fa parte di", "faceva parte di", "componente di",
                    "sezione di", "capitolo di"],
        "MEMBER_OF": ["membro di", "membri di", "iscritto a", "iscritta a", "socio di"],
        "LOCATED_IN": ["si trova a", "si trova in", "situato a", "situata a", "situato in",
                       "situata in", "ha sede a", "ha sede in", "con sede a", "con sede in",
                       "vive a", "vive in", "viveva a", "abita a", "abita in", "risiede a"],
        "WORKS_AT": ["lavora presso", "lavorava presso", "lavorano presso", "lavora per",
                     "lavorava per", "lavora in", "impiegato presso", "impiegata presso",
                     "dipendente di", "assunto da", "assunta da"],
        "WORKS_ON": ["lavora su", "lavorava su", "lavorano su", "lavora al progetto",
                     "lavorava al progetto", "contribuisce a", "contribuiva a", "partecipa a"],
        "DEPENDS_ON": ["dipende da", "dipendeva da", "dipendono da", "richiede",
                       "necessita di", "si basa su", "basato su", "basata su"],
        "USES": ["usa", "usava", "usano", "utilizza", "utilizzava", "utilizzano",
                 "si serve di"],
        "HAS_AUTHOR": ["scritto da", "scritta da", "redatto da", "redatta da"],
        "CREATED_BY": ["creato da", "creata da", "sviluppato da", "sviluppata da",
                       "progettato da", "ideato da", "fondato da", "fondata da",
                       "inventato da"],
        "MARRIED_TO": ["sposato con", "sposata con", "sposato", "sposata", "sposò",
                       "marito di", "moglie di", "coniuge di"],
        "CHILD_OF": ["figlio di", "figlia di", "figli di"],
        "PARENT_OF": ["padre di", "madre di", "genitore di"],
        "BORN_IN": ["nato a", "nata a", "nato in", "nata in", "nacque a", "nacque in"],
        "DIED_IN": ["morto a", "morta a", "morto in", "morta in", "morì a", "morì in",
                    "deceduto a", "deceduta a"],
        "STUDIED_AT": ["studiato a", "studiato presso", "studia a", "studia presso",
                       "studiava a", "laureato a", "laureata a", "laureato presso",
                       "laureata presso", "diplomato a"],
        "FOUNDED": ["ha fondato", "fondò", "fonda", "fondatore di", "fondatrice di",
                    "cofondatore di"],
        "LEADS": ["guida", "guidava", "dirige", "dirigeva", "a capo di", "capo di",
                  "leader di", "direttore di", "direttrice di"],
        "SUPERSEDES": ["sostituisce", "sostituiva", "rimpiazza", "succede a",
                       "successore di"],
        "SEE_ALSO": ["vedi anche", "vedi", "si veda", "vedere", "cfr.", "cfr"],
        "BELONGS_TO": ["appartiene a", "apparteneva a", "appartengono a"],
        "KNOWS": ["conosce", "conosceva", "conobbe"],
        "FRIEND_OF": ["amico di", "amica di", "amici di"],
        "HAS_OWNER": ["di proprietà di", "posseduto da", "posseduta da"],
        "RELATED_TO": ["correlato a", "correlata a", "collegato a", "collegata a",
                       "legato a", "legata a", "relativo a", "associato a", "connesso a"],
    },
    "de": {
        "WORKS_WITH": ["arbeitet mit", "arbeitete mit", "arbeiten mit", "arbeiteten mit",
                       "arbeitet zusammen mit", "arbeitete zusammen mit", "kooperiert mit",
                       "zusammengearbeitet mit"],
        "REPORTS_TO": ["berichtet an", "berichtete an", "untersteht", "unterstellt",
                       "betreut von", "verwaltet von"],
        "MANAGES": ["verwaltet", "managt", "betreut", "beaufsichtigt", "vorgesetzter von",
                    "vorgesetzte von", "manager von"],
        "HAS_RESPONSIBLE": ["geleitet von", "geführt von", "koordiniert von"],
        "PART_OF": ["teil von", "teil des", "teil der", "bestandteil von",
                    "bestandteil des", "bestandteil der"],
        "MEMBER_OF": ["mitglied von", "mitglied des", "mitglied der", "mitglied bei",
                      "mitglied in"],
        "LOCATED_IN": ["befindet sich in", "liegt in", "sitz in", "ansässig in", "wohnt in",
                       "wohnte in", "lebt in", "lebte in", "gelegen in"],
        "WORKS_AT": ["arbeitet bei", "arbeitete bei", "arbeiten bei", "angestellt bei",
                     "beschäftigt bei", "tätig bei", "arbeitet für", "arbeitete für"],
        "WORKS_ON": ["arbeitet an", "arbeitete an", "arbeiten an", "beschäftigt sich mit"],
        "DEPENDS_ON": ["hängt ab von", "hängt von", "abhängig von", "benötigt", "braucht",
                       "basiert auf"],
        "USES": ["verwendet", "verwendete", "nutzt", "nutzte", "benutzt", "benutzte"],
        "HAS_AUTHOR": ["geschrieben von", "verfasst von"],
        "CREATED_BY": ["erstellt von", "erschaffen von", "entwickelt von", "gegründet von",
                       "erfunden von", "gemacht von"],
        "MARRIED_TO": ["verheiratet mit", "heiratete", "ehefrau von", "ehemann von",
                       "gattin von"],
        "CHILD_OF": ["kind von", "sohn von", "tochter von", "sohn des", "tochter des"],
        "PARENT_OF": ["vater von", "mutter von", "elternteil von"],
        "BORN_IN": ["geboren in", "geb. in"],
        "DIED_IN": ["gestorben in", "starb in", "verstorben in"],
        "STUDIED_AT": ["studierte an", "studiert an", "studium an", "absolvent der",
                       "absolventin der", "absolvent von"],
        "FOUNDED": ["gründete", "gründet", "gründer von", "gründerin von",
                    "mitbegründer von"],
        "LEADS": ["leitet", "leitete", "führt", "führte", "leiter von", "leiterin von",
                  "chef von", "chefin von"],
        "SUPERSEDES": ["ersetzt", "ersetzte", "nachfolger von", "löst ab"],
        "SEE_ALSO": ["siehe auch", "siehe", "vgl.", "vergleiche"],
        "BELONGS_TO": ["gehört zu", "gehörte zu", "gehört", "zugehörig zu"],
        "KNOWS": ["kennt", "kannte", "bekannt mit"],
        "FRIEND_OF": ["freund von", "freundin von", "befreundet mit"],
        "HAS_OWNER": ["im besitz von", "eigentum von"],
        "RELATED_TO": ["verwandt mit", "bezogen auf", "verbunden mit",
                       "im zusammenhang mit"],
    },
    "fr": {
        "WORKS_WITH": ["travaille avec", "travaillait avec", "travaillent avec",
                       "travaillé avec", "collabore avec", "collaborait avec",
                       "collaboré avec"],
        "REPORTS_TO": ["rend compte à", "rendait compte à", "relève de", "rapporte à",
                       "géré par", "gérée par", "supervisé par", "supervisée par",
                       "encadré par", "encadrée par"],
        "MANAGES": ["gère", "gérait", "gèrent", "supervise", "supervisait", "encadre",
                    "manage", "responsable de"],
        "HAS_RESPONSIBLE": ["dirigé par", "dirigée par", "mené par", "menée par",
                            "piloté par", "pilotée par", "coordonné par", "coordonnée par"],
        "PART_OF": ["fait partie de", "faisait partie de", "partie de", "composant de",
                    "élément de", "section de"],
        "MEMBER_OF": ["membre de", "membres de", "adhérent de"],
        "LOCATED_IN": ["situé à", "située à", "situé en", "située en", "situé dans",
                       "située dans", "basé à", "basée à", "basé en", "basée en",
                       "se trouve à", "se trouve en", "se trouve dans", "habite à",
                       "habite en", "vit à", "vit en", "vivait à", "installé à"],
        "WORKS_AT": ["travaille chez", "travaillait chez", "travaillent chez",
                     "travaillé chez", "travaille pour", "travaillait pour", "employé chez",
                     "employée chez", "employé par", "employée par", "salarié de",
                     "salariée de"],
        "WORKS_ON": ["travaille sur", "travaillait sur", "travaillent sur", "travaillé sur",
                     "contribue à", "contribuait à", "participe à"],
        "DEPENDS_ON": ["dépend de", "dépendait de", "dépendent de", "nécessite", "requiert",
                       "repose sur", "s'appuie sur"],
        "USES": ["utilise", "utilisait", "utilisent", "se sert de"],
        "HAS_AUTHOR": ["écrit par", "écrite par", "rédigé par", "rédigée par"],
        "CREATED_BY": ["créé par", "créée par", "conçu par", "conçue par", "développé par",
                       "développée par", "fondé par", "fondée par", "inventé par"],
        "MARRIED_TO": ["marié à", "mariée à", "marié avec", "mariée avec", "épouse de",
                       "époux de", "mari de"],
        "CHILD_OF": ["enfant de", "fils de", "fille de"],
        "PARENT_OF": ["père de", "mère de", "parent de"],
        "BORN_IN": ["né à", "née à", "né en", "née en", "né dans", "née dans"],
        "DIED_IN": ["mort à", "morte à", "mort en", "décédé à", "décédée à", "décédé en"],
        "STUDIED_AT": ["étudié à", "étudie à", "étudiait à", "diplômé de", "diplômée de",
                       "étudiant à", "étudiante à"],
        "FOUNDED": ["fondé", "fonde", "fondateur de", "fondatrice de", "cofondateur de"],
        "LEADS": ["dirige", "dirigeait", "mène", "menait", "pilote", "pilotait", "chef de",
                  "directeur de", "directrice de", "à la tête de"],
        "SUPERSEDES": ["remplace", "remplaçait", "succède à", "successeur de"],
        "SEE_ALSO": ["voir aussi", "voir également", "voir", "cf."],
        "BELONGS_TO": ["appartient à", "appartenait à", "appartiennent à"],
        "KNOWS": ["connaît", "connait", "connaissait", "rencontré"],
        "FRIEND_OF": ["ami de", "amie de", "amis de", "ami avec"],
        "HAS_OWNER": ["détenu par", "détenue par", "possédé par", "propriété de"],
        "RELATED_TO": ["lié à", "liée à", "en lien avec", "relatif à", "associé à"],
    },
    "es": {
        "WORKS_WITH": ["trabaja con", "trabajaba con", "trabajan con", "trabajó con",
                       "trabajando con", "trabajado con", "colabora con", "colaboraba con",
                       "colaboró con"],
        "REPORTS_TO": ["reporta a", "reportaba a", "rinde cuentas a", "supervisado por",
                       "supervisada por", "gestionado por", "gestionada por"],
        "MANAGES": ["gestiona", "gestionaba", "administra", "administraba", "supervisa",
                    "supervisaba", "coordina", "responsable de"],
        "HAS_RESPONSIBLE": ["dirigido por", "dirigida por", "liderado por", "liderada por",
                            "coordinado por", "coordinada por"],
        "PART_OF": ["parte de", "forma parte de", "formaba parte de", "componente de",
                    "sección de"],
        "MEMBER_OF": ["miembro de", "miembros de", "integrante de", "socio de"],
        "LOCATED_IN": ["ubicado en", "ubicada en", "situado en", "situada en",
                       "localizado en", "localizada en", "con sede en", "vive en",
                       "vivía en", "reside en", "se encuentra en", "radica en"],
        "WORKS_AT": ["trabaja en", "trabajaba en", "trabajó en", "trabaja para",
                     "trabajaba para", "trabajó para", "empleado de", "empleada de",
                     "empleado en", "empleada en"],
        "WORKS_ON": ["trabaja en el proyecto", "trabaja sobre", "contribuye a",
                     "contribuyó a", "participa en"],
        "DEPENDS_ON": ["depende de", "dependía de", "dependen de", "requiere", "necesita",
                       "se basa en"],
        "USES": ["usa", "usaba", "usan", "utiliza", "utilizaba", "utilizan", "emplea"],
        "HAS_AUTHOR": ["escrito por", "escrita por", "redactado por", "redactada por"],
        "CREATED_BY": ["creado por", "creada por", "desarrollado por", "desarrollada por",
                       "diseñado por", "fundado por", "fundada por", "inventado por"],
        "MARRIED_TO": ["casado con", "casada con", "se casó con", "esposa de", "esposo de",
                       "marido de"],
        "CHILD_OF": ["hijo de", "hija de", "hijos de"],
        "PARENT_OF": ["padre de", "madre de"],
        "BORN_IN": ["nació en", "nacido en", "nacida en"],
        "DIED_IN": ["murió en", "falleció en", "fallecido en", "fallecida en", "muerto en"],
        "STUDIED_AT": ["estudió en", "estudia en", "estudiaba en", "graduado de",
                       "graduada de", "egresado de", "egresada de"],
        "FOUNDED": ["fundó", "funda", "cofundó", "fundador de", "fundadora de",
                    "cofundador de"],
        "LEADS": ["dirige", "dirigía", "lidera", "lideraba", "encabeza", "jefe de",
                  "jefa de", "director de", "directora de", "líder de"],
        "SUPERSEDES": ["reemplaza", "reemplazó", "sustituye", "sucede a", "sucesor de"],
        "SEE_ALSO": ["véase también", "ver también", "véase", "ver", "cf."],
        "BELONGS_TO": ["pertenece a", "pertenecía a", "pertenecen a"],
        "KNOWS": ["conoce", "conocía", "conoció"],
        "FRIEND_OF": ["amigo de", "amiga de", "amigos de"],
        "HAS_OWNER": ["propiedad de"],
        "RELATED_TO": ["relacionado con", "relacionada con", "vinculado a", "vinculada a",
                       "asociado a", "asociado con"],
    },
    "pt": {
        "WORKS_WITH": ["trabalha com", "trabalhava com", "trabalham com", "trabalhou com",
                       "trabalhando com", "trabalhado com", "colabora com", "colaborava com",
                       "colaborou com"],
        "REPORTS_TO": ["reporta a", "reporta-se a", "responde a", "subordinado a",
                       "subordinada a", "gerido por", "gerenciado por", "supervisionado por"],
        "MANAGES": ["gere", "gerencia", "gerenciava", "administra", "supervisiona",
                    "coordena", "responsável por"],
        "HAS_RESPONSIBLE": ["liderado por", "liderada por", "dirigido por", "dirigida por",
                            "coordenado por", "coordenada por", "chefiado por"],
        "PART_OF": ["parte de", "faz parte de", "fazia parte de", "componente de",
                    "seção de", "secção de"],
        "MEMBER_OF": ["membro de", "membros de", "integrante de", "sócio de"],
        "LOCATED_IN": ["localizado em", "localizada em", "situado em", "situada em",
                       "sediado em", "sediada em", "com sede em", "fica em", "mora em",
                       "morava em", "vive em", "vivia em", "reside em"],
        "WORKS_AT": ["trabalha em", "trabalhava em", "trabalhou em", "trabalha para",
                     "trabalhava para", "empregado de", "empregada de", "funcionário de",
                     "funcionária de"],
        "WORKS_ON": ["trabalha no projeto", "trabalha sobre", "contribui para",
                     "contribuiu para", "participa de"],
        "DEPENDS_ON": ["depende de", "dependia de", "dependem de", "requer", "precisa de",
                       "necessita de", "baseia-se em"],
        "USES": ["usa", "usava", "usam", "utiliza", "utilizava", "utilizam"],
        "HAS_AUTHOR": ["escrito por", "escrita por", "redigido por", "de autoria de"],
        "CREATED_BY": ["criado por", "criada por", "desenvolvido por", "desenvolvida por",
                       "projetado por", "fundado por", "fundada por", "inventado por"],
        "MARRIED_TO": ["casado com", "casada com", "casou com", "casou-se com", "esposa de",
                       "esposo de", "marido de"],
        "CHILD_OF": ["filho de", "filha de", "filhos de"],
        "PARENT_OF": ["pai de", "mãe de"],
        "BORN_IN": ["nasceu em", "nascido em", "nascida em"],
        "DIED_IN": ["morreu em", "faleceu em", "falecido em", "falecida em"],
        "STUDIED_AT": ["estudou em", "estuda em", "estudava em", "formou-se em"],
        "FOUNDED": ["fundou", "funda", "cofundou", "fundador de", "fundadora de",
                    "cofundador de"],
        "LEADS": ["lidera", "liderava", "dirige", "dirigia", "chefia", "chefe de",
                  "diretor de", "diretora de", "líder de"],
        "SUPERSEDES": ["substitui", "substituiu", "sucede a", "sucessor de"],
        "SEE_ALSO": ["ver também", "veja também", "veja", "ver", "cf."],
        "BELONGS_TO": ["pertence a", "pertencia a", "pertencem a"],
        "KNOWS": ["conhece", "conhecia", "conheceu"],
        "FRIEND_OF": ["amigo de", "amiga de", "amigos de"],
        "HAS_OWNER": ["propriedade de"],
        "RELATED_TO": ["relacionado com", "relacionado a", "relacionada com", "ligado a",
                       "ligada a", "associado a"],
    },
}  # fmt: skip

# A phrase ending in one of these prepositions also matches its contracted forms.
_CONTRACTIONS: dict[str, dict[str, tuple[str, ...]]] = {
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
_SEPARATOR_WORDS = (
    "and", "or", "as well as", "plus", "also", "the", "an", "a",
    "e", "ed", "o", "od", "oppure", "anche", "il", "lo", "la", "i", "gli", "le",
    "und", "oder", "sowie", "auch", "der", "die", "das", "den", "dem",
    "et", "ou", "ainsi que", "aussi", "les", "l'",
    "y", "u", "ni", "también", "el", "los", "las",
    "além de", "bem como", "também", "os", "as",
)  # fmt: skip


_TOKEN = re.compile(r"\w+'?|[^\w\s]")
_PUNCTUATION_SEPARATORS = (",", ";", "&", "/", "+", "-", "\u2013", "\u2014")


def _tokens(text: str) -> list[str]:
    """Case-folded NFC words (an elided article keeps its apostrophe) and punctuation marks."""
    nfc = unicodedata.normalize("NFC", text).replace("\u2019", "'")
    return [t.casefold() for t in _TOKEN.findall(nfc)]


def _phrase_forms(phrase: str, lang: str) -> list[tuple[str, ...]]:
    *head, last = phrase.split()
    forms = _CONTRACTIONS[lang].get(last, (last,)) if head else (last,)
    return [tuple(_tokens(" ".join([*head, form]))) for form in forms]


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
_SEPARATOR_INDEX = frozenset(tuple(_tokens(s)) for s in _SEPARATOR_WORDS + _PUNCTUATION_SEPARATORS)
_MAX_SEPARATOR = max(map(len, _SEPARATOR_INDEX))
assert set(_PHRASE_INDEX.values()) <= RELATIONS


def phrase_relation(text: str) -> str | None:
    """The relation of the phrase ending closest to the end of ``text`` (longest on a tie)."""
    tokens = _tokens(text)
    for end in range(len(tokens), 0, -1):
        for size in range(min(_MAX_PHRASE, end), 0, -1):
            relation = _PHRASE_INDEX.get(tuple(tokens[end - size : end]))
            if relation is not None:
                return relation
    return None


def _only_separators(text: str) -> bool:
    tokens, i = _tokens(text), 0
    while i < len(tokens):
        for size in range(min(_MAX_SEPARATOR, len(tokens) - i), 0, -1):
            if tuple(tokens[i : i + size]) in _SEPARATOR_INDEX:
                i += size
                break
        else:
            return False
    return True


def infer_relations(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """One relation per link span on ``line``, read from the words just before each link.

    A link with no phrase of its own inherits the previous link's relation when only
    separators stand between them ("works with [[A]] and [[B]]"); otherwise it is LINKS_TO.
    """
    out: list[str] = []
    prev_end = 0
    for start, end in spans:
        segment = line[prev_end:start] if start > prev_end else ""
        relation = phrase_relation(segment)
        if relation is None:
            relation = out[-1] if out and _only_separators(segment) else LINKS_TO
        out.append(relation)
        prev_end = max(prev_end, end)
    return out


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
    "julho": 7, "setembro": 9, "outubro": 10, "dezembro": 12, "fev": 2, "out": 10,
}  # fmt: skip
