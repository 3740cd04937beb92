"""A retrieval's result and how it is shown: text, JSON, Mermaid/DOT, join clause, documents."""
