"""The vault folder on disk: which files are notes, reading and writing them, note locks."""
