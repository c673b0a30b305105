// Path and content hash of every note of a vault (for a sync to find what changed); a note
// whose facts were derived under another FACTS_VERSION, or whose language was decided under
// another setting, reports no hash, so it is rewritten.
// Parameters: $vault (str), $facts_version (int), $language_setting (str, language.setting_key)
// Returns: path, content_hash (str or null)
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL
RETURN n.path AS path,
       CASE WHEN n.facts_version = $facts_version AND n.language_setting = $language_setting
            THEN n.content_hash END AS content_hash
