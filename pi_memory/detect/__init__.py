"""The detectors: text features, the set-similarity join, pair judging, near-duplicates,
conflicts, health, prompt hints."""
