// Block until every index is ONLINE or the timeout passes (raises on timeout or FAILED).
// Parameters: $timeout_s (int, seconds)
// Returns: nothing
CALL db.awaitIndexes($timeout_s)
