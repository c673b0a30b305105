// Record the folder a vault is synced from, by its resolved path and its identity (the same
// folder mounted at another path keeps it): read back by vault_folder.cypher.
// Parameters: $vault (str), $folder (str), $folder_id (str or null, device:inode)
// Returns: folder (str, as recorded), folder_id (str or null, as recorded)
MERGE (s:NameStamp {vault: $vault})
SET s.folder = $folder, s.folder_id = $folder_id
RETURN s.folder AS folder, s.folder_id AS folder_id
