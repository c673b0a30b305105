// Create or update notes.
// Parameters: $vault (str), $notes (list of maps: path, props (map: title, name, stem, lpath,
//             aliases, tags, fnames, ftags (case-folded names and tags), content_hash, mtime,
//             dates, frontmatter, frontmatter_error, headings, mkey, mtitle, mkeys (mention
//             keys), mparen (its parenthesis's name key), mloose (loose name key),
//             facts_version, language, language_setting))
// Returns: written (int)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $notes AS nt
MERGE (n:Note {vault: $vault, path: nt.path})
ON CREATE SET n.created_at = datetime()
SET n += nt.props, n.updated_at = datetime()
RETURN count(n) AS written
