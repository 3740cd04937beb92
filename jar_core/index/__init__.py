"""What is embedded, the in-memory index of a schema, its streamed build and its files on disk."""
