"""The model client: wire formats, CLI providers, redaction and the usage ledger."""
