// Constraints and indexes of the Knotwork graph; every statement is idempotent.
// Parameters: $embedding_dimension (int, the vector size of Chunk.embedding)
// Returns: nothing. Index names are fixed; graph/store.py lists them in EXPECTED_INDEXES.
// Also a vault's notes alone: a query reading them says `n.path IS NOT NULL` (always true), and a
// composite index serves a seek on its first property when the rest is asked to exist. No index
// on the vault alone: planned on an empty database, a note looked up by vault and path seeks the
// whole vault by it and filters the path, and the plan is kept as the vault grows (a sync of 1k
// notes 2.6x slower, bench/RESULTS.md).
CREATE CONSTRAINT note_key IF NOT EXISTS
FOR (n:Note) REQUIRE (n.vault, n.path) IS UNIQUE;

CREATE CONSTRAINT chunk_id IF NOT EXISTS
FOR (c:Chunk) REQUIRE c.id IS UNIQUE;

CREATE CONSTRAINT entity_key IF NOT EXISTS
FOR (e:Entity) REQUIRE (e.vault, e.key) IS UNIQUE;

CREATE CONSTRAINT manifest_key IF NOT EXISTS
FOR (m:Manifest) REQUIRE m.key IS UNIQUE;

CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS
FOR (c:Chunk) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $embedding_dimension,
                       `vector.similarity_function`: 'cosine'}};

// A note's vector (the mean of its chunks' vectors, note_embedding_set.cypher): what the note
// is about as a whole, for the note-level dense retriever (search_notes_vector.cypher).
CREATE VECTOR INDEX note_embedding IF NOT EXISTS
FOR (n:Note) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $embedding_dimension,
                       `vector.similarity_function`: 'cosine'}};

// Chunk text and context (title, aliases, headings) for BM25, one index per language, each
// with that language's analyzer (stemming, stop words, elision): a chunk carries the label of
// its note's language (chunks_write.cypher). They replace the single `chunk_text` index of
// the default analyzer (schema_retired.cypher drops it).

CREATE FULLTEXT INDEX chunk_text_en IF NOT EXISTS
FOR (c:English) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};

CREATE FULLTEXT INDEX chunk_text_it IF NOT EXISTS
FOR (c:Italian) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'italian'}};

CREATE FULLTEXT INDEX chunk_text_de IF NOT EXISTS
FOR (c:German) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'german'}};

CREATE FULLTEXT INDEX chunk_text_fr IF NOT EXISTS
FOR (c:French) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'french'}};

CREATE FULLTEXT INDEX chunk_text_es IF NOT EXISTS
FOR (c:Spanish) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'spanish'}};

CREATE FULLTEXT INDEX chunk_text_pt IF NOT EXISTS
FOR (c:Portuguese) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'portuguese'}};

CREATE FULLTEXT INDEX chunk_text_th IF NOT EXISTS
FOR (c:Thai) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'thai'}};

// Chinese, Japanese and Korean (language `cjk`): overlapping pairs of Han, kana and Hangul
// characters, so a word is found inside a run ("서울" in "서울은").
CREATE FULLTEXT INDEX chunk_text_cjk IF NOT EXISTS
FOR (c:CJK) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};

// Russian (every note mostly in Cyrillic) and Arabic (every note mostly in the Arabic script):
// their stemmers, and their letters folded ("ё" as "е"; the forms of alef as one).
CREATE FULLTEXT INDEX chunk_text_ru IF NOT EXISTS
FOR (c:Russian) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'russian'}};

CREATE FULLTEXT INDEX chunk_text_ar IF NOT EXISTS
FOR (c:Arabic) ON EACH [c.text, c.context]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'arabic'}};

// Lao, Khmer and Myanmar: no analyzer splits their runs into words, so a chunk holding them
// keeps the overlapping pairs of their grapheme clusters in Chunk.pairs (text/pairs.py), split
// here on spaces, whatever the chunk's language. No other chunk has the property, so this
// index holds nothing of it.
CREATE FULLTEXT INDEX chunk_pairs IF NOT EXISTS
FOR (c:Chunk) ON EACH [c.pairs]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};

CREATE FULLTEXT INDEX entity_names IF NOT EXISTS
FOR (n:Entity|Note) ON EACH [n.name, n.title, n.aliases];

CREATE CONSTRAINT unresolved_key IF NOT EXISTS
FOR (u:Unresolved) REQUIRE (u.vault, u.key) IS UNIQUE;

CREATE INDEX note_stem IF NOT EXISTS
FOR (n:Note) ON (n.vault, n.stem);

CREATE INDEX revision_path IF NOT EXISTS
FOR (v:Revision) ON (v.vault, v.path);

CREATE INDEX chunk_pending IF NOT EXISTS
FOR (c:Chunk) ON (c.extraction_state);

CREATE INDEX chunk_embedding_state IF NOT EXISTS
FOR (c:Chunk) ON (c.embedding_state)
;

CREATE CONSTRAINT lease_vault IF NOT EXISTS
FOR (l:Lease) REQUIRE l.vault IS UNIQUE;

CREATE CONSTRAINT calibration_vault IF NOT EXISTS
FOR (k:Calibration) REQUIRE k.vault IS UNIQUE;

CREATE INDEX note_mkey IF NOT EXISTS
FOR (n:Note) ON (n.vault, n.mkey);

CREATE INDEX note_mtitle IF NOT EXISTS
FOR (n:Note) ON (n.vault, n.mtitle);

CREATE INDEX note_mloose IF NOT EXISTS
FOR (n:Note) ON (n.vault, n.mloose);

CREATE INDEX note_mparen IF NOT EXISTS
FOR (n:Note) ON (n.vault, n.mparen);

CREATE INDEX entity_mkey IF NOT EXISTS
FOR (e:Entity) ON (e.vault, e.mkey);

// A chunk's words for the reverse mention pass: a full-text index splitting Chunk.mtext (already
// case-folded words joined by single spaces) on whitespace, so a phrase query for a name key
// finds exactly the chunks holding its words in a row. It replaces the text index chunk_mtext
// (schema_retired.cypher drops it), whose trigrams made it the costliest index a chunk fed.

CREATE FULLTEXT INDEX chunk_words IF NOT EXISTS
FOR (c:Chunk) ON EACH [c.mtext]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};

CREATE INDEX mention_target IF NOT EXISTS
FOR ()-[r:MENTIONS]-() ON (r.target);

CREATE VECTOR INDEX entity_embedding IF NOT EXISTS
FOR (e:Entity) ON e.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $embedding_dimension,
                       `vector.similarity_function`: 'cosine'}};

CREATE INDEX entity_embedding_state IF NOT EXISTS
FOR (e:Entity) ON (e.vault, e.embedding_state)
