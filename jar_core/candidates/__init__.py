"""The first stage: dense (+ BM25) top-N candidates, copies collapsed, join-graph expansion, value matches."""
