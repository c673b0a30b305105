"""What the REST API and the MCP server share beyond the core, with no transport in it: note
writes into the vault folder (``writes``), the one graph writer per vault they go through
(``writers``), the model's work left behind them (``extraction``), the folder they write into
(``folder``), their refusals (``refusals``) and the bodies both answer with (``bodies``).
``api`` turns these into HTTP, ``mcp`` into tool results.
"""
