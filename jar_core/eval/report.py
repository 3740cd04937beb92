"""Output of ``jar-retrieval eval``: JSON, markdown, a plot and a plain-text table.

* :func:`write_json`: the exact ``--json`` shape, written atomically (a temporary file in the
  same folder, then ``os.replace``), so a failed run never leaves a half-written file behind;
* :func:`markdown`: the R / CR table in the paper's layout (one row per method, columns
  ``R@K`` and ``CR@K``), each figure followed by its gain or loss against ``dense`` when dense
  was run; then the selection time per method and K and, when the MIP ran, its solve outcomes;
* :func:`plot`: recall and complete recall against K per method, and selection time per method
  on a log axis (matplotlib, Agg backend, imported only here);
* :func:`text_table`: the same figures as plain text for stdout.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from jar_core.errors import InvalidArgumentError, JarError

__all__ = ["write_json", "write_text", "markdown", "plot", "text_table"]

#: A MIP solve's outcomes (jar_core.strategies.mip), in the order they are reported.
_STATUSES = ("optimal", "feasible", "relaxed", "no_solution", "infeasible")


def _umask_mode(path: str) -> None:
    """Give a temporary file the mode a plain ``open`` would have (mkstemp makes it 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


@contextlib.contextmanager
def _atomic_target(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[str]:
    """A temp file beside ``path`` to write; renamed onto ``path`` only if the block succeeds."""
    out = Path(path)
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise InvalidArgumentError(f"cannot write {out}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=suffix, dir=folder)
    except OSError as e:
        raise InvalidArgumentError(f"cannot write {out}: {e.strerror or e}") from e
    os.close(fd)
    try:
        yield tmp
        _umask_mode(tmp)
        os.replace(tmp, out)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise InvalidArgumentError(f"cannot write {out}: {e.strerror or e}") from e
        raise


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` atomically (temp file in the same folder + ``os.replace``)."""
    with _atomic_target(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    return Path(path)


def write_json(path: str | os.PathLike[str], payload: Mapping[str, Any]) -> Path:
    """Write the ``--json`` payload (see :meth:`jar_core.eval.harness.Evaluation.to_dict`)."""
    return write_text(path, json.dumps(payload, indent=2) + "\n")


def _by_method(results: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[int], dict[tuple[str, int], Mapping[str, Any]]]:
    methods: list[str] = []
    ks: list[int] = []
    cells: dict[tuple[str, int], Mapping[str, Any]] = {}
    for row in results:
        if row["method"] not in methods:
            methods.append(row["method"])
        if row["k"] not in ks:
            ks.append(row["k"])
        cells[(row["method"], row["k"])] = row
    return methods, sorted(ks, key=_k_order), cells


def _k_order(k: Any) -> float:
    """Numbers in order, then ``auto``."""
    return float("inf") if k == "auto" else float(k)


def _cell(value: float, ref: float | None) -> str:
    if ref is None:
        return f"{value:.1f}"
    d = round(value, 1) - round(ref, 1)
    return f"{value:.1f} ({d:+.1f})"


def _seconds(s: float) -> str:
    if s >= 100:
        return f"{s:.0f}"
    if s >= 1:
        return f"{s:.1f}"
    if s >= 0.01:
        return f"{s:.3f}"
    return f"{s:.5f}"


def _md(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table, the first column left-aligned and the others right-aligned."""
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def _grid(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A plain-text table: columns padded to their widest cell, a rule under the header."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return [line(header), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]


def markdown(payload: Mapping[str, Any], *, title: str | None = None) -> str:
    """The paper-layout tables for one ``--json`` payload."""
    methods, ks, cells = _by_method(payload["results"])
    lines: list[str] = []
    if title:
        lines += [f"### {title}", ""]
    lines.append(
        f"{payload['benchmark']}: {payload['questions']} multi-table questions, top-{payload['candidates']} "
        f"candidates; R = recall, CR = complete recall (%)"
        + ("; in brackets the difference to dense" if "dense" in methods else "")
        + "."
    )
    lines.append("")
    rows = []
    for m in methods:
        row = [m]
        for k in ks:
            c = cells.get((m, k))
            ref = cells.get(("dense", k)) if m != "dense" else None
            for key in ("recall", "complete_recall"):
                if c is None:
                    row.append("-")
                else:
                    row.append(_cell(c[key], ref[key] if ref is not None else None))
        rows.append(row)
    lines += _md(["method"] + [f"{m}@{k}" for k in ks for m in ("R", "CR")], rows)

    if _has_joins(cells):
        lines += ["", "Join keys (%): JP = join precision (returned edges between two gold tables that are a gold "
                  "join), JR = join recall (gold joins between two returned tables that are among the edges).", ""]
        lines += _md(["method"] + [f"{m}@{k}" for k in ks for m in ("JP", "JR")], _join_rows(methods, ks, cells))
    lines += ["", f"Selection time in seconds for all {payload['questions']} questions "
              f"(signals, computed once for all methods: {_seconds(payload['signals_seconds'])} s)"
              + ("; in brackets the ratio to greedy" if "greedy" in methods else "") + ".", ""]
    rows = []
    for m in methods:
        row = [m]
        for k in ks:
            c = cells.get((m, k))
            g = cells.get(("greedy", k))
            if c is None:
                row.append("-")
            elif g is not None and m != "greedy" and g["seconds"] > 0:
                row.append(f"{_seconds(c['seconds'])} (x{c['seconds'] / g['seconds']:.3g})")
            else:
                row.append(_seconds(c["seconds"]))
        rows.append(row)
    lines += _md(["method"] + [f"K={k}" for k in ks], rows)

    status = payload.get("mip_status") or {}
    if status:
        lines += ["", f"MIP solve outcomes per K on the {_joins(payload)} join graph (time limit per question; relaxed = "
                  "no connected K-set, the fewest join-connected components returned; no solution = nothing "
                  "retrieved).", ""]
        lines += _md(["K", *_STATUSES], [[k, *(str(status[k].get(s, 0)) for s in _STATUSES)]
                                          for k in sorted(status, key=_k_order)])
    return "\n".join(lines) + "\n"


def _joins(payload: Mapping[str, Any]) -> str:
    return str(payload.get("joins") or "rules")


def _has_joins(cells: Mapping[tuple[str, int], Mapping[str, Any]]) -> bool:
    return any(c.get("join_precision") is not None or c.get("join_recall") is not None for c in cells.values())


def _chars(v: Any) -> str:
    """Characters per question: ``3.3k``."""
    return "-" if v is None else f"{v / 1000:.1f}k" if v >= 1000 else f"{v:.0f}"


def _pct(v: Any) -> str:
    return "-" if v is None else f"{v:.1f}"


def _join_rows(methods: Sequence[str], ks: Sequence[int], cells: Mapping[tuple[str, int], Mapping[str, Any]]) -> list[list[str]]:
    """Join precision and recall per method, JP and JR at each K."""
    rows = []
    for m in methods:
        row = [m]
        for k in ks:
            c = cells.get((m, k)) or {}
            row += [_pct(c.get("join_precision")), _pct(c.get("join_recall"))]
        rows.append(row)
    return rows


def text_table(payload: Mapping[str, Any]) -> str:
    """Plain-text R / CR table (and seconds) for stdout."""
    methods, ks, cells = _by_method(payload["results"])
    rows = []
    for m in methods:
        row = [m]
        secs = 0.0
        for k in ks:
            c = cells.get((m, k))
            row += ["-", "-"] if c is None else [f"{c['recall']:.1f}", f"{c['complete_recall']:.1f}"]
            secs += c["seconds"] if c is not None else 0.0
        row.append(_seconds(secs))
        rows.append(row)
    out = [
        f"{payload['benchmark']}: {payload['questions']} multi-table questions, {payload['candidates']} candidates, "
        f"signals {_seconds(payload['signals_seconds'])} s",
        *_grid(["method"] + [f"{m}@{k}" for k in ks for m in ("R", "CR")] + ["seconds"], rows),
    ]
    if any((c or {}).get("prompt_chars") is not None for c in cells.values()):
        out += _grid(["prompt chars"] + [f"@{k}" for k in ks], [
            [m] + [_chars((cells.get((m, k)) or {}).get("prompt_chars")) for k in ks] for m in methods
        ])
    if _has_joins(cells):
        out += _grid(["joins"] + [f"{m}@{k}" for k in ks for m in ("JP", "JR")], _join_rows(methods, ks, cells))
    status = payload.get("mip_status") or {}
    for k in sorted(status, key=_k_order):
        out.append(f"mip K={k} ({_joins(payload)} joins): " + ", ".join(f"{s} {status[k].get(s, 0)}" for s in _STATUSES))
    return "\n".join(out)


def plot(payload: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Recall and complete recall vs K per method, and selection time per method (log axis)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise JarError("--plot needs matplotlib (pip install matplotlib)") from err
    methods, ks, cells = _by_method(payload["results"])
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for m in methods:
        mk = [k for k in ks if (m, k) in cells]
        axes[0].plot(mk, [cells[(m, k)]["recall"] for k in mk], marker="o", label=m)
        axes[1].plot(mk, [cells[(m, k)]["complete_recall"] for k in mk], marker="o", label=m)
        axes[2].plot(mk, [max(cells[(m, k)]["seconds"], 1e-6) for k in mk], marker="o", label=m)
    for ax, title in zip(axes, ("Recall (%)", "Complete recall (%)", "Selection time (s, all questions)")):
        ax.set_title(title)
        ax.set_xlabel("K")
        ax.set_xticks(ks)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylim(0, 102)
    axes[1].set_ylim(0, 102)
    axes[2].set_yscale("log")
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"{payload['benchmark']}: {payload['questions']} multi-table questions, "
                 f"top-{payload['candidates']} candidates")
    fig.tight_layout()
    out = Path(path)
    try:
        with _atomic_target(out, out.suffix or ".png") as tmp:
            fig.savefig(tmp, dpi=110, format=(out.suffix.lstrip(".") or "png"))
    finally:
        plt.close(fig)
    return out
