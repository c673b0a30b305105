"""Text rules that ingest and retrieval share: fences, languages, stop words, names, dates."""
