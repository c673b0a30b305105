// The notes a path that names none may have meant, for the not-found message of a note read:
// those whose file stem, title or an alias is the path's last part without .md, case-folded
// (Note.fnames, as notes_search.cypher compares names; a note written before they were kept is
// compared lower-cased). The one at the path in other letter case comes first. Placeholders of
// links are no note to read.
// Sought through the indexes, not the vault's every note: the file stem by note_stem (lower
// case) and note_mkey (its name key, case-folded words), the title by note_mtitle, an alias by
// its entity's key (entity_key) and HAS_ALIAS; a name without a name key (too short or long,
// stop words only) has its title looked up in the full-text index instead. What they find is
// then compared exactly, as above.
// Parameters: $vault (str), $name (str, case-folded (text/keys.py folded)),
//             $lpath (str, the path as links are matched: text/keys.py link_key), $limit (int),
//             $stem (str, the last part of $lpath), $key (str or null, the name's name_key),
//             $alias (str, the name's entity_key), $phrase (str, a Lucene phrase of the name's
//             words when $key is null, else '')
// Returns: path (str); at most $limit rows
CALL () {
  MATCH (n:Note {vault: $vault, stem: $stem}) RETURN n
  UNION
  MATCH (n:Note {vault: $vault, mkey: $key}) RETURN n
  UNION
  MATCH (n:Note {vault: $vault, mtitle: $key}) RETURN n
  UNION
  MATCH (:Entity {vault: $vault, key: $alias})<-[a:HAS_ALIAS]-(n:Note)
  WHERE a.source = n.path
  RETURN n
  UNION
  WITH $phrase AS phrase WHERE phrase <> ''
  CALL db.index.fulltext.queryNodes('entity_names', phrase) YIELD node
  WITH node WHERE node:Note AND node.vault = $vault
  RETURN node AS n
}
WITH n WHERE n.content_hash IS NOT NULL
  AND $name IN coalesce(n.fnames, [a IN [n.stem, n.title] + coalesce(n.aliases, []) |
                                   replace(replace(toLower(a), 'ß', 'ss'), 'ς', 'σ')])
RETURN n.path AS path
ORDER BY CASE WHEN n.lpath = $lpath THEN 0 ELSE 1 END, path
LIMIT $limit
