"""Words too common, in the six languages, to say what a passage or a name is about: relevance
does not count them, and a note named by one ("Tra", "Come") is never found by mentions."""

from __future__ import annotations

from knotwork.text.language import FUNCTION_WORDS

_STOP_TEXT = """
the a an and or of to in on at for by with from is are was were be been being this that these
those it its as do does did what which who whom whose when where why how not no yes can could
would should will shall may might must has have had there their they them he she his her him
we our you your i me my than then so if but about into over under after before between
il lo la i gli le un una uno e o di da del della dei delle in su per con tra fra che chi cosa
come quando dove perché non è sono era erano ha hanno al alla ai alle nel nella
der die das ein eine einer und oder von zu im in auf für mit aus ist sind war waren hat haben
wer was wann wo wie warum nicht dem den des
le la les un une et ou de du des en dans sur pour par avec est sont était qui que quoi quand
où comment pourquoi ne pas au aux ce cette
el la los las un una y o de del en sobre para por con es son era qué quién cuándo dónde cómo
por qué no al lo
o a os as um uma e ou de do da dos das em no na sobre para por com é são era que quem quando
onde como porque não ao
qual quali quale quanto quanta quanti quante cos si ci ne vi
welche welcher welches quel quelle quels quelles cuál cuáles cuánto cuántos quais quantos
"""
# With the function words text/language.py tells languages by ("più", "anche", "sind", "très" …).
STOPWORDS = frozenset(_STOP_TEXT.split()) | FUNCTION_WORDS
