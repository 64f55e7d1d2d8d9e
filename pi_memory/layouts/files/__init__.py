"""The ``files`` layout (seed 004): one Markdown file per memory and a hand-editable index."""
