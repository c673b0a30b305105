// The folder a vault's notes were last synced from (vault_folder_set.cypher): a sync of another
// folder under the same vault name would take every note of it for deleted (ingest/plan.py).
// Parameters: $vault (str)
// Returns: folder (str or null, the resolved path), folder_id (str or null, device:inode)
OPTIONAL MATCH (s:NameStamp {vault: $vault})
RETURN s.folder AS folder, s.folder_id AS folder_id
