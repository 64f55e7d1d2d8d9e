"""The ``categories`` layout (seed 000): category files of entry rows, a derived index."""
