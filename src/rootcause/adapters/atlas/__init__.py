"""The message atlas's I/O: PyPI downloads, archive reading, the SQLite store."""
