// A vault's relevance floor for one embedding model (retrieve/relevance.py), if calibrated.
// A name and the same name tagged ':latest' are one model (Ollama reads an untagged name as
// ':latest'; graph/schema.py same_model): a floor stored under either is found by the other.
// Parameters: $vault (str), $embed_model (str)
// Returns: floor (float), probe_mean (float or null: calibrated before it was stored),
//          probes (int), languages (list<str>), calibrated_at (datetime)
MATCH (k:Calibration {vault: $vault})
WHERE k.embed_model = $embed_model
   OR k.embed_model = $embed_model + ':latest'
   OR k.embed_model + ':latest' = $embed_model
RETURN k.floor AS floor, k.probe_mean AS probe_mean, k.probes AS probes,
       k.languages AS languages, k.calibrated_at AS calibrated_at
