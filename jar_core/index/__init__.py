"""The index of a schema (METHOD.md, "Offline indexing"): what is embedded (:mod:`.texts`), the
in-memory index (:mod:`.schema_index`), its streamed build (:mod:`.build`), the on-disk format
(:mod:`.store`, :mod:`.npz`, :mod:`.publish`) and the approximate index saved with it (:mod:`.ann`)."""
