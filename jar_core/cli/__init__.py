"""The jar-retrieval command: retrieve, index, eval, bench and the MCP server."""
