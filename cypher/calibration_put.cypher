// Store a vault's relevance floor (retrieve/relevance.py), replacing the one before.
// Parameters: $vault (str), $embed_model (str), $floor (float), $probes (int),
//             $languages (list<str>)
// Returns: vault (str)
MERGE (k:Calibration {vault: $vault})
SET k.embed_model = $embed_model, k.floor = $floor, k.probes = $probes,
    k.languages = $languages, k.calibrated_at = datetime()
RETURN k.vault AS vault
