// Path and content hash of every note of a vault (for a sync to find what changed and what
// moved); a note whose facts were derived under another FACTS_VERSION, or whose language was
// decided under another setting, is not current, so it is rewritten (a move of it is still
// found by its hash, and kept as a move).
// Parameters: $vault (str), $facts_version (int), $language_setting (str, language.setting_key)
// Returns: path, content_hash (str or null for a placeholder), current (bool)
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL
RETURN n.path AS path, n.content_hash AS content_hash,
       coalesce(n.facts_version = $facts_version AND n.language_setting = $language_setting,
                false) AS current
