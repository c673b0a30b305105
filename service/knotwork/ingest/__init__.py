"""Notes into the graph: parse, chunk, facts, mentions, extract, draft, write, sync."""
