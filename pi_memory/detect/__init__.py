"""The detectors: similarity features, near-duplicates, conflicts, health, prompt hints."""
