// Store a vault's relevance floor and its probes' mean cosine (retrieve/relevance.py),
// replacing the ones before.
// Parameters: $vault (str), $embed_model (str), $floor (float), $probe_mean (float),
//             $probes (int), $languages (list<str>)
// Returns: vault (str)
MERGE (k:Calibration {vault: $vault})
SET k.embed_model = $embed_model, k.floor = $floor, k.probe_mean = $probe_mean,
    k.probes = $probes, k.languages = $languages, k.calibrated_at = datetime()
RETURN k.vault AS vault
