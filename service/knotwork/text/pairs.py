"""Lao, Khmer and Myanmar runs as the overlapping pairs of their grapheme clusters, for full
text; pure.

These scripts write no space between words, and no analyzer Neo4j offers splits them: Lucene's
standard tokenizer, under each of them, keeps a run between spaces as one term (the `thai`
analyzer's dictionary knows Thai only, the `cjk` analyzer pairs Han, kana and Hangul only), so a
word inside a run is no term of any index. A chunk holding such runs keeps them paired in
``Chunk.pairs``, which the ``chunk_pairs`` index splits on spaces (schema.cypher), and a
question is searched there by its own pairs, as the `cjk` analyzer pairs characters: "ວຽງຈັນ"
finds "ນະຄອນຫຼວງວຽງຈັນເປັນ…" by ວຽ, ຽງ, ງຈັ and ຈັນ. A cluster is a letter with its marks as
``regex``'s ``\\X`` reads it (a Khmer consonant with the one subscript under it: ប្រ), so no
pair parts a letter from its vowel sign.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import pairwise

import regex

from knotwork.text.scripts import KHMER_BLOCKS, LAO_BLOCK, MYANMAR_BLOCKS, char_class

# Their blocks, as a character class (``re``, ``regex`` and Java's regex alike).
SCRIPTS = char_class(LAO_BLOCK, *MYANMAR_BLOCKS, *KHMER_BLOCKS)
# The one test a chunk without these scripts costs: a scan of its characters, no regex V1 set.
_ANY = re.compile(SCRIPTS)
# A run: their letters and marks; a space, a digit or punctuation ends it (so a pair never
# spans what Lucene's tokenizers would part).
_RUN = regex.compile(rf"[{SCRIPTS}&&[\p{{L}}\p{{M}}]]+", regex.V1)
_CLUSTER = regex.compile(r"\X")


def runs(text: str) -> list[list[str]]:
    """The grapheme clusters of each Lao, Khmer or Myanmar run of ``text`` (NFC, as a question
    is searched), in order; none when it holds none of their characters."""
    if _ANY.search(text) is None:
        return []
    found = _RUN.findall(unicodedata.normalize("NFC", text))
    return [_CLUSTER.findall(run) for run in found]


def pairs(clusters: list[str]) -> list[str]:
    """A run's overlapping pairs of clusters; a run of one cluster is that cluster alone."""
    if len(clusters) == 1:
        return clusters
    return [a + b for a, b in pairwise(clusters)]


def chunk_pairs(text: str) -> str | None:
    """What a chunk keeps in ``Chunk.pairs``: the pairs of every run of ``text``, split by
    spaces; None for a chunk without these scripts (nearly every chunk: no property at all, so
    the ``chunk_pairs`` index holds nothing of it)."""
    found = [p for run in runs(text) for p in pairs(run)]
    return " ".join(found) if found else None
