"""File-system primitives: atomic writes, retries, the O_EXCL lock, snapshots, the parse cache."""
