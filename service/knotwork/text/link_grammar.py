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

# Words that may stand in a cue's clause before it and leave the note the cue's subject
# ("She reports to [[Bob]]", "Also works with", "Ha lavorato con"): the pronouns a note's own
# subject goes by, adverbs of time and manner, auxiliaries, numbers aside. Any other word
# names another subject ("Dana reports to [[Bob]]" in a meeting's note), or a negation ("never
# worked with"): the link is then LINKS_TO, a plain link, not a fact of the note's. No
# relative pronoun: "who" in "works with [[Bob]], who reports to [[Carol]]" is Bob.
SUBJECT_WORDS = (
    "i", "he", "she", "they", "we", "it", "also", "now", "currently", "still", "formerly",
    "previously", "directly", "mainly", "mostly", "usually", "often", "sometimes", "always",
    "already", "recently", "then", "later", "once", "first", "officially", "since", "until",
    "has", "have", "had", "is", "was", "are", "were", "will", "would", "be", "been", "being",
    "do", "does", "did", "and", "but", "so", "today", "yesterday", "can", "could", "may",
    "might", "must", "should", "shall", "just", "i'", "he'", "she'", "it'", "we'", "they'",
    "s", "ve", "re", "m", "ll", "d",
    "io", "lui", "lei", "egli", "ella", "noi", "loro", "anche", "ora", "adesso", "oggi",
    "attualmente", "ancora", "già", "poi", "direttamente", "principalmente", "spesso",
    "sempre", "dal", "ha", "hanno", "ho", "è", "era", "erano", "sono", "sarà", "aveva",
    "sta", "stava", "e", "ma", "abbiamo", "avete", "stato", "stata", "stati", "ieri",
    "ich", "er", "sie", "es", "wir", "auch", "jetzt", "heute", "derzeit", "aktuell", "noch",
    "bereits", "schon", "direkt", "hauptsächlich", "oft", "immer", "seit", "hat", "haben",
    "hatte", "ist", "war", "sind", "wird", "und", "aber", "habe", "hast", "gestern",
    "je", "j'", "il", "elle", "ils", "elles", "nous", "on", "aussi", "maintenant",
    "aujourd'", "actuellement", "encore", "déjà", "directement", "souvent", "toujours",
    "depuis", "a", "ont", "est", "était", "sont", "sera", "avait", "et", "mais", "ai", "as",
    "avons", "avez", "été", "hier",
    "yo", "él", "ella", "ellos", "ellas", "nosotros", "también", "ahora", "hoy",
    "actualmente", "todavía", "ya", "directamente", "siempre", "desde", "ha", "han", "es",
    "era", "está", "son", "será", "y", "pero", "he", "has", "hemos", "habéis", "fue", "ayer",
    "eu", "ele", "ela", "eles", "elas", "nós", "agora", "hoje", "atualmente", "ainda", "já",
    "diretamente", "sempre", "tem", "têm", "é", "são", "será", "está", "mas", "também",
    "tenho", "temos", "tinha", "foi", "ontem",
)  # fmt: skip

# German subject pronouns that follow the verb when a scene comes first (verb second: "In
# Berlin arbeitet sie mit", "Seit 2020 leitet er"): the cue is read with the pronoun left out.
# A name in that place is another subject's, or the note's under another name: no cue. No
# "man" (anyone) nor "ihr" (also "her", "their": "arbeitet ihr Team mit" is her team's).
INVERTED_PRONOUNS = ("ich", "er", "sie", "es", "wir")

# Words that open a scene before the subject ("At Acme, works with", "In 2020 she joined"):
# a part of the clause opened by one and set off by a comma says nothing of the subject.
SCENE_WORDS = (
    "at", "in", "on", "since", "from", "until", "after", "before", "during", "as", "of", "for",
    "nel", "nella", "nei", "dal", "dalla", "dopo", "prima", "durante", "a", "da", "per",
    "im", "am", "seit", "ab", "nach", "vor", "während", "bei", "für",
    "à", "en", "dans", "depuis", "après", "avant", "pendant", "chez", "pour",
    "desde", "después", "antes", "para", "no", "na", "em", "depois", "após",
)  # fmt: skip

# An article and one of these name the note's own subject ("The project uses [[Atlas]]" in a
# project's note); an article and another noun name another ("The intern reports to").
SELF_NOUNS = (
    "project", "service", "library", "tool", "app", "application", "system", "product",
    "package", "module", "repository", "repo", "paper", "book", "company", "organization",
    "organisation", "framework", "plugin", "platform", "document", "spec", "server",
    "progetto", "servizio", "libreria", "strumento", "sistema", "prodotto", "pacchetto",
    "modulo", "azienda", "documento", "società",
    "projekt", "dienst", "bibliothek", "werkzeug", "produkt", "paket", "modul", "firma",
    "unternehmen", "dokument",
    "projet", "bibliothèque", "outil", "système", "produit", "paquet", "entreprise",
    "société",
    "proyecto", "servicio", "biblioteca", "librería", "herramienta", "producto", "paquete",
    "módulo", "empresa",
    "projeto", "serviço", "ferramenta", "produto", "pacote",
)  # fmt: skip

# A demonstrative and one word name the note's own subject ("This project uses [[Atlas]]").
DEMONSTRATIVES = (
    "this", "these", "questo", "questa", "questi", "queste", "dieser", "diese", "dieses",
    "ce", "cet", "cette", "ces", "este", "esta", "estos", "estas", "esse", "essa", "isto",
)  # fmt: skip

# What may stand between a cue and its link besides punctuation, articles and abbreviations
# and quantifiers ("works at the [[Acme]]", "reports to our [[CTO]]", "uses several [[Tools]]",
# "works with Dr. [[Smith]]"). Any other
# word is the cue's object, and the link is not ("works with Dana on the [[Budget]]").
BETWEEN_WORDS = (
    "my", "our", "his", "her", "their", "its", "your",
    "mio", "mia", "suo", "sua", "nostro", "nostra", "loro", "un", "uno", "una", "un'",
    "mein", "meine", "sein", "seine", "ihr", "ihre", "unser", "unsere", "ein", "eine",
    "einem", "einer", "einen",
    "mon", "ma", "son", "sa", "notre", "leur", "une", "des",
    "mi", "su", "nuestro", "nuestra", "uno", "unos", "unas",
    "meu", "minha", "seu", "sua", "nosso", "nossa", "um", "uma",
    "more", "many", "several", "some", "all", "più", "molti", "molte", "alcuni", "alcune",
    "vari", "varie", "tutti", "tutte", "mehrere", "einige", "viele", "alle", "plusieurs",
    "quelques", "tous", "toutes", "varios", "varias", "algunos", "algunas", "todos", "todas",
    "vários", "várias", "alguns", "algumas", "both", "entrambi", "beiden", "ambos",
)  # fmt: skip
