"""Per-question relevance, coverage and join matrices over the candidate set (METHOD.md, the signals)."""
