"""The ``files`` layout (pi-memory): one Markdown file per memory and a hand-editable index."""
