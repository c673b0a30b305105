"""How a question asks, in each language: the words and phrases it is asked *with* rather than
*about*, which the relevance gate does not ask the notes to hold (retrieve/rank.py ``asked``).

The stop words (stopwords.py) are shared with name matching, and the name keys stored on the
notes are made with them, so they stay few. A question carries more than they hold: its
pronouns, its question words, every form of the auxiliary and modal verbs, the prepositions
merged with an article. English lists nearly all of these among the stop words, the other
languages only a few — so "When was the meeting?" asked the notes for "meeting" alone, while
"Wann ist das Treffen gewesen?" also asked for "gewesen" and "Wer hat … entschlüsselt und
welchen Preis bekam er?" for "welchen" and "er", and a note that answers them was refused.
These tables give every language the same reach.

A question also asks *that* something happened, with verbs a note that dates or places the
event seldom writes: "When did the meeting take place?", "Wann fand das Treffen statt?",
"Quando si è svolta la riunione?", "Quand a eu lieu la réunion ?", "¿Cuándo tuvo lugar la
reunión?", "Quando aconteceu a reunião?"; or what one did, as English asks with "did … do"
(stop words): "Was habe ich gestern gemacht?", "Cosa ho fatto ieri?", "¿Qué hice ayer?", "O
que fiz ontem?" — a journal entry writes what was done, not "gemacht" or "fatto", and a short
question seldom holds enough function words to tell its language by (German "was" is English
too). ``PHRASES`` lists them, and the auxiliary with a participle that is also a noun ("è
stato", the Italian "state"); ``…`` stands for up to ``GAP`` words, as German puts the subject
inside its verb ("fand das Treffen statt"). A question also says where to look: "What is in
my notes about volcanoes?", "Cosa dicono i miei appunti su…", "Was steht in meinen Notizen
über…" — every note is one of "my notes", so a note that says "notes" answers nothing for it,
and the gate let an off-topic question through on that word. Only the possessive forms are
listed: "release notes" and "meeting notes" are what a question is about.

A language's words count for a question most of whose function words are of that language
(text/language.py ``leading_language``), and none for one that holds none or ties: German
"man" ("Wie macht man Brot?") is an English noun, French "car" ("because") is one too, and an
English question's "die" or "son" must not make it German or Spanish. The phrases are long or
specific enough to count in any question: a short one often holds no function word of its own
language ("Quand a eu lieu la réunion ?" only the Italian "la").
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from knotwork.text.language import Language

GAP = 6  # words that may stand inside a phrase at its "…"

_WORDS: dict[Language, str] = {
    "en": """am us ours yours theirs hers myself yourself himself herself itself ourselves
        themselves whether while during through since until upon within without against
        towards among very any some much many few every both either neither nor here onto""",
    "de": """einen kein keine keinen keinem keiner keines ich du er sie es wir ihr mich dich mir
        dir ihn ihm ihnen uns euch man sein seine seinen seinem seiner seines ihre ihren ihrem
        ihrer ihres mein meine meinen meinem meiner dein deine deinen deinem unser unsere
        unseren unserem unserer euer eure jemand etwas nichts alle alles jede jeder jedes jeden
        jedem dieses diesen diesem jene jener jenes jenen wozu wieso weshalb weswegen woher
        wohin womit wofür wodurch worüber worauf woran worin wovon wobei welchen welchem
        wieviel wieviele viel viele vielen bin bist seid sei seien wäre wären warst gewesen
        wurde wurden wurdest worden geworden werde wirst würde würden habe hast habt hatte
        hatten hätte hätten gehabt tut tun tat kannst können konnte konnten könnte könnten
        muss musst müssen musste mussten müsste soll sollst sollen sollte sollten willst wollen
        wollte wollten darf dürfen durfte mag möchte am an ans beim vom ins aufs ums um unter
        vor hinter neben zwischen ohne gegen seit bis während wegen trotz statt anstatt außer
        als ob weil denn sondern doch dann da damit dort hier dabei dafür dazu darüber davon
        daran darauf darin dadurch danach davor deshalb jetzt schon sehr immer""",
    "it": """dello dell degli dal dallo dalla dai dagli dalle dall nello nell negli nelle nei sul
        sullo sulla sull sui sugli sulle col coi allo agli all ad io tu lui lei noi voi loro
        egli esso essa essi esse mi ti me te sé mio mia miei mie tuo tua tuoi tue suo sua suoi
        sue nostro nostra nostri nostre vostro vostra queste quello quella quelli quelle quel
        quei quegli ciò perchè com dov quand siamo siete eri fu furono fosse fossero sia siano
        sarà saranno sarebbe ho hai abbiamo avete aveva avevano ebbe ebbero avuto avere abbia
        avrà può possono posso puoi potrebbe deve devono devi dovrebbe vuole vogliono oppure
        né già ancora molto molti molta molte tutto tutti tutta tutte qui qua lì là""",
    "fr": """je tu il elle on nous vous ils elles me te se lui leur leurs moi toi soi eux mon ma
        mes ton ta tes sa ses notre nos votre vos celui celle ceux celles cela ça ceci qu dont
        lequel laquelle lesquels lesquelles combien suis es sommes êtes étaient fut furent sera
        seront serait soit avoir ai as avons avez ont avait avaient eu eut aura auront aurait
        peux pouvez peuvent pourrait doit doivent devrait faut veut veulent chez vers sous
        depuis pendant avant après contre selon parmi malgré donc car ni si lorsque puis alors
        ainsi encore déjà tout tous toute toutes""",
    "es": """unos unas yo tú él ella ello nosotros nosotras vosotros ellos ellas usted ustedes
        me te se nos os le les mí ti sí mi mis tu tus nuestro nuestra nuestros nuestras esto
        eso ese esa esos esas aquel aquella quién quiénes quien quienes cual cuales cuánta
        cuántas cuanto cuantos adónde soy eres somos eran fueron fui sido será sería sea sean
        estar estoy está estamos están estaba estaban estuvo he has ha hemos han había habían
        hubo habrá haya haber tiene tienen tenía tuvo puede pueden podría debe deben debería a
        ante bajo contra hacia según tras durante sino ni pues porque ya aún todavía todo todos
        toda todas cada mucho muchos mucha muchas""",
    "pt": """uns umas dum duma num numa pelos pelas neste nesta nesse nessa deste desta desse
        dessa à às eu tu ele ela nós eles elas você vocês me te se lhe lhes nos meu minha meus
        minhas teu tua seus suas nosso nossa isto isso aquilo este esta estes estas esse essa
        esses essas aquele aquela qual quanto quanta quantas porquê sou és somos eram foram fui
        sido será seria seja sejam estar estou estamos estão estava esteve ter tenho tem têm
        temos tinha tinham teve tido houve pode podem poderia deve devem deveria até após sob
        nem pois já ainda todo todos toda todas cada muitos muita muitas""",
}

PHRASES: dict[Language, tuple[str, ...]] = {
    "en": (
        "take place", "takes place", "took place", "taken place", "taking place", "happen",
        "happens", "happened", "occur", "occurs", "occurred", "held",
        "my notes", "my note", "our notes", "your notes", "my vault",
    ),
    "de": (
        "fand … statt", "findet … statt", "finden … statt", "fanden … statt", "stattfinden",
        "stattfand", "stattgefunden", "passiert", "passierte", "geschah", "geschehen",
        "ereignete sich", "abgehalten", "habe ich … gemacht", "hast du … gemacht",
        "haben wir … gemacht", "habt ihr … gemacht", "habe ich … getan", "hast du … getan",
        "haben wir … getan", "meine notizen", "meinen notizen", "meiner notizen",
        "meine notiz", "meiner notiz", "unsere notizen", "unseren notizen",
    ),
    "it": (
        "è stato", "è stata", "sono stati", "sono state", "è avvenuto", "è avvenuta",
        "avvenuto", "avvenuta", "avvenne", "si è svolto", "si è svolta", "si svolge",
        "si svolse", "si è tenuto", "si è tenuta", "si tiene", "si tenne", "ha avuto luogo",
        "ha luogo", "ebbe luogo", "è successo", "è successa", "accaduto", "accadde",
        "ho fatto", "hai fatto", "abbiamo fatto", "avete fatto", "miei appunti",
        "mie note", "mio appunto", "mia nota", "nostri appunti", "nostre note",
    ),
    "fr": (
        "a eu lieu", "ont eu lieu", "a lieu", "ont lieu", "aura lieu", "avoir lieu",
        "s est passé", "s est passée", "se passe", "s est déroulé", "s est déroulée",
        "se déroule", "s est tenu", "s est tenue", "se tient", "est arrivé", "est arrivée",
        "mes notes", "ma note", "nos notes",
    ),
    "es": (
        "tuvo lugar", "tiene lugar", "ha tenido lugar", "tendrá lugar", "ocurrió", "ocurre",
        "sucedió", "sucede", "pasó", "se celebró", "se celebra", "se realizó", "hice",
        "hiciste", "hicimos", "mis notas", "mi nota", "mis apuntes", "nuestras notas",
    ),
    "pt": (
        "teve lugar", "tem lugar", "aconteceu", "acontece", "ocorreu", "ocorre",
        "se realizou", "realizou se", "foi realizado", "foi realizada", "fiz", "fizeste",
        "fizemos", "minhas notas", "minha nota", "minhas anotações", "nossas notas",
    ),
}  # fmt: skip

WORDS: dict[Language, frozenset[str]] = {lang: frozenset(t.split()) for lang, t in _WORDS.items()}
Parts = tuple[tuple[str, ...], ...]  # a phrase as its parts between the gaps, each its words
# The phrases of every language by their first word.
_BY_FIRST: dict[str, list[Parts]] = {}
for _phrase in (phrase for phrases in PHRASES.values() for phrase in phrases):
    _parts = tuple(tuple(part.split()) for part in _phrase.split("…"))
    _BY_FIRST.setdefault(_parts[0][0], []).append(_parts)


def asking_words(languages: Collection[Language]) -> frozenset[str]:
    """The words a question in ``languages`` is asked with, beyond the stop words."""
    return frozenset().union(*(WORDS.get(lang, frozenset()) for lang in languages))


def phrase_places(words: Sequence[str]) -> set[int]:
    """The places in ``words`` (case-folded, as text.keys.words gives them) of the phrases
    that ask whether, when or where something happened, in any of the languages."""
    found: set[int] = set()
    for start, word in enumerate(words):
        for parts in _BY_FIRST.get(word, ()):
            found |= _match(words, start, parts)
    return found


def _match(words: Sequence[str], start: int, parts: Parts) -> set[int]:
    """The places of the phrase ``parts`` begun at ``start``, none when it is not there: each
    part follows the one before within GAP words."""
    at, places = start, set[int]()
    for i, part in enumerate(parts):
        reach = range(at, at + 1) if i == 0 else range(at, min(at + GAP + 1, len(words)))
        begin = next((j for j in reach if tuple(words[j : j + len(part)]) == part), None)
        if begin is None:
            return set()
        places.update(range(begin, begin + len(part)))
        at = begin + len(part)
    return places
