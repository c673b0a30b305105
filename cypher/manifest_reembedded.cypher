// The end of a re-embedding: the manifest names the new model and the mark is cleared, in one
// transaction, only while the re-embedding still holds its lease over every vault. One whose
// lease lapsed (the process paused past its TTL) may have been followed by another that is
// rebuilding the indexes now: its mark must stay.
// Parameters: $guard (str: the re-embedding's lease), $holder (str or null: its holder; null
//             for a caller that holds none, refused while any re-embedding holds it live),
//             $schema_version (int), $embed_model (str),
//             $embed_provider (str: KNOTWORK_EMBED_PROVIDER), $embed_dimension (int),
//             $knotwork_version (str)
// Returns: ok (bool: written), manifest (map, null when not ok), reembed (map: holder, host,
//          pid, mode, heartbeat_at (str) of the lease's live holder now, or null)
// The guard's write lock first, as every take of a lease locks it: no one takes it meanwhile.
MERGE (g:Lease {vault: $guard})
ON CREATE SET g.expires_at = datetime() - duration('PT1S')
SET g._lock = true
REMOVE g._lock
WITH g, coalesce(g.expires_at >= datetime(), false) AS live
WITH g, live, CASE WHEN $holder IS NULL THEN NOT live ELSE live AND g.holder = $holder END AS ours
CALL (ours) {
  WITH ours WHERE ours
  MERGE (m:Manifest {key: 'knotwork'})
  ON CREATE SET m.created_at = datetime()
  SET m.schema_version = CASE WHEN m.schema_version > $schema_version
                               THEN m.schema_version ELSE $schema_version END,
      m.embed_model = $embed_model,
      m.embed_provider = $embed_provider,
      m.embed_dimension = $embed_dimension,
      m.knotwork_version = $knotwork_version,
      m.reembedding_model = null,
      m.reembedding_dimension = null,
      m.updated_at = datetime()
  RETURN properties(m) AS manifest
  UNION
  WITH ours WHERE NOT ours
  RETURN null AS manifest
}
RETURN ours AS ok, manifest,
       CASE WHEN live THEN g {.holder, .host, .pid, .mode, heartbeat_at: toString(g.heartbeat_at)}
       END AS reembed
