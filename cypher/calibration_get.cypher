// A vault's relevance floor for one embedding model (retrieve/relevance.py), if calibrated.
// The model is given in each of its spellings (model_names.py: a name and the same name
// tagged ':latest' are one model), so a floor stored under either is found by the other.
// Parameters: $vault (str), $embed_models (list<str>: one model's spellings)
// Returns: floor (float), probe_mean (float or null: calibrated before it was stored),
//          probes (int), languages (list<str>), calibrated_at (datetime)
MATCH (k:Calibration {vault: $vault})
WHERE k.embed_model IN $embed_models
RETURN k.floor AS floor, k.probe_mean AS probe_mean, k.probes AS probes,
       k.languages AS languages, k.calibrated_at AS calibrated_at
