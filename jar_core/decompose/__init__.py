"""Sub-queries of a question: the heuristic decomposer and the LLM-backed one."""
