"""The ``categories`` layout (pi-memory-auto): category files of entry rows, a derived index."""
