"""The watcher: the graph follows the vault folder live."""
