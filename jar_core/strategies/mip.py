"""JAR (MIP), Chen et al. 2024: one mixed-integer program per question (METHOD.md).

The program, over the ``n`` candidates and ``m`` sub-queries of a :class:`Signals` object:

* ``b_i`` (binary): candidate ``i`` is chosen; ``sum_i b_i = K``.
* ``d_ji`` (binary): sub-query ``j`` is answered by a column of candidate ``i``;
  ``d_ji <= b_i``; total assignments ``sum d <= Q`` (``Q = m`` unless ``max_subqueries``).
  The paper has one variable per column, ``d_jik``, with at most one column per ``(j, i)``;
  since the objective only sees ``F_jik`` of the chosen column, one variable per ``(j, i)``
  with coefficient ``F_ji = max_k F_jik`` (what ``Signals.F`` holds) is an exact reduction.
* ``u_j`` (binary): sub-query ``j`` is covered; ``u_j <= sum_i d_ji``.
* ``c_il`` (binary), ``i < l`` with ``w_il > 0``: the join between ``i`` and ``l`` is used;
  ``c_il <= b_i``, ``c_il <= b_l``; ``sum c <= K - 1``. The paper has one variable per column
  pair with at most one per table pair; the best pair (score ``w_il``) is the only one the
  optimum can use, so one variable per table pair is again exact.
* Connectivity, single-commodity flow: ``s_i`` (binary) marks the source, ``sum s = 1``,
  ``s_i <= b_i``; flows ``f_il, f_li >= 0`` on every candidate join edge with
  ``f <= (K - 1) c``; net outflow at ``i`` is ``K s_i - b_i``: the source emits ``K`` units and
  every chosen table (the source included) absorbs one, so every chosen table is reached
  through chosen joins. With ``K = 1`` no join and no flow variable is created.

Objective (maximised): ``w1 sum F d + w2 sum u + w4 sum r b + w3 sum w c``.

Output order: the pinned candidates first (in their given order; they are forced ``b_i = 1``),
then the other chosen candidates by decreasing ``r`` (ties: lower index first).

``Selection.status`` reports how the solve ended: ``optimal``; ``feasible`` (stopped, e.g. by
the time limit, with an incumbent, which is returned); ``no_solution`` (stopped without one);
``relaxed`` (``connect="forest"``, the default: the best K tables are not all connected by the
joins they use); ``infeasible`` (``connect="tree"``: no connected K-set exists, e.g. too few
positive join scores, or the pinned tables cannot be connected). Without a solution ``order`` is
empty (counts as retrieving nothing).

Connectivity, ``connect="forest"`` (default): any chosen table may be a source (``sum s >= 1``,
each emitting up to K units) and at most ``K - sum s`` joins are used, so the joins counted form
a spanning forest with one tree per source: what can be connected is, and a table no join
reaches stands alone. The paper's program (``connect="tree"``: one source, a spanning tree)
requires the K tables to be connected; on the honest ``rules`` join graph, sparser than the
paper's pair score, that is often impossible, or possible only with tables of another
database. On a graph with a positive score between every pair of candidates the two agree
(adding a join of positive score to a forest of several trees always gains).

``Selection.steps`` holds one :class:`StepGain` per returned table, an attribution of the
objective to tables (not the marginal gains of a sequential process): ``coarse = r_i``;
``coverage = sum_j F_ji d_ji`` over the sub-queries assigned to ``i``; ``join`` = the sum of
the chosen join scores touching ``i``; ``total = w4 r_i + w1 coverage + w2 (number of covered
sub-queries whose best assigned table is i) + w3 join / 2``, so the totals add up to the
objective value (each join is split between its two tables).

The solver runs silently, single-threaded and with a fixed seed, so results are
deterministic for a given input.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from jar_core.errors import InvalidArgumentError, SolverError
from jar_core.signals.matrices import Signals
from jar_core.strategies.base import Selection, StepGain
from jar_core.strategies.greedy import check_weights

__all__ = ["MipStrategy", "status_label"]

_SOLVERS = {"cbc": "CBC", "highs": "HiGHS"}


def _check_signals(signals: Signals) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = signals.n
    r = np.asarray(signals.r, dtype=np.float64)
    F = np.asarray(signals.F, dtype=np.float64)
    w = np.asarray(signals.w, dtype=np.float64)
    if F.ndim == 1 and F.size == 0:
        F = F.reshape(0, n)
    if r.shape != (n,) or F.ndim != 2 or F.shape[1] != n or w.shape != (n, n):
        raise InvalidArgumentError(
            f"inconsistent signal shapes: n={n}, r{r.shape}, F{F.shape}, w{w.shape}"
        )
    for name, arr in (("r", r), ("F", F), ("w", w)):
        if not np.all(np.isfinite(arr)):
            raise InvalidArgumentError(f"signal {name} has non-finite values")
    return r, F, w


def _check_pinned(pinned: Sequence[int], n: int, k: int) -> list[int]:
    out: list[int] = []
    for p in pinned:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise InvalidArgumentError(f"pinned candidate {p!r} is not an index")
        p = int(p)
        if not 0 <= p < n:
            raise InvalidArgumentError(f"pinned candidate {p} out of range [0, {n})")
        if p in out:
            raise InvalidArgumentError(f"candidate {p} pinned twice")
        out.append(p)
    if len(out) > k:
        raise InvalidArgumentError(f"{len(out)} pinned candidates but only {k} to select")
    return out


def status_label(status, has_solution: bool) -> str:
    """Map a python-mip ``OptimizationStatus`` to ``Selection.status``.

    ``OPTIMAL`` -> ``optimal``; ``FEASIBLE`` (stopped with an incumbent, e.g. by the time
    limit) -> ``feasible``; ``INFEASIBLE`` / ``INT_INFEASIBLE`` -> ``infeasible``; anything
    else (``NO_SOLUTION_FOUND``: stopped without an incumbent, ...) -> ``no_solution``. A
    reported optimum or incumbent without a stored solution is ``no_solution`` too.
    """
    import mip

    S = mip.OptimizationStatus
    if status in (S.OPTIMAL, S.FEASIBLE):
        if not has_solution:
            return "no_solution"
        return "optimal" if status == S.OPTIMAL else "feasible"
    if status in (S.INFEASIBLE, S.INT_INFEASIBLE):
        return "infeasible"
    return "no_solution"


class MipStrategy:
    """The exact join-aware baseline: one MIP per question (see the module docstring).

    Args:
        weights: ``(w1, w2, w3, w4)``: fine relevance, sub-query coverage, join score, coarse
            relevance. Spider's reference weights are the default; BIRD used ``(3, 8, 1, 3)``.
            Each in ``[0, MAX_WEIGHT]`` (:data:`jar_core.strategies.greedy.MAX_WEIGHT`), not all 0.
        time_limit: seconds per solve; a solve stopped by it reports ``feasible`` (returning
            its incumbent) or ``no_solution``.
        max_subqueries: the bound ``Q`` on the total number of (sub-query, table) assignments;
            ``None`` means the number of sub-queries.
        solver: ``"cbc"`` (default) or ``"highs"``, through python-mip.
        connect: ``"forest"`` (default): the joins counted form a spanning forest of the K
            tables, so what can be connected is and the rest stands alone (status ``relaxed``
            when the best set is not connected); on a join graph with a positive score between
            every pair (the paper's pair score) this is the paper's program. ``"tree"``: the
            paper's constraint that the K tables be connected; a question without a connected
            K-set among its candidates retrieves nothing (status ``infeasible``).
    """

    name = "mip"

    def __init__(
        self,
        weights: Sequence[float] = (2.0, 8.0, 1.0, 10.0),
        time_limit: float = 60.0,
        max_subqueries: int | None = None,
        solver: str = "cbc",
        connect: str = "forest",
    ) -> None:
        try:
            ws = tuple(float(x) for x in weights)
        except (TypeError, ValueError) as err:
            raise InvalidArgumentError(f"weights must be 4 numbers, got {weights!r}") from err
        if len(ws) != 4:
            raise InvalidArgumentError(f"weights must be 4 numbers, got {weights!r}")
        ws = check_weights(tuple(zip(("w1", "w2", "w3", "w4"), ws)))
        try:
            tl = float(time_limit)
        except (TypeError, ValueError) as err:
            raise InvalidArgumentError(f"time_limit must be a number, got {time_limit!r}") from err
        if not tl > 0 or math.isnan(tl):
            raise InvalidArgumentError(f"time_limit must be > 0, got {time_limit!r}")
        if max_subqueries is not None and (
            isinstance(max_subqueries, bool)
            or not isinstance(max_subqueries, (int, np.integer))
            or max_subqueries < 0
        ):
            raise InvalidArgumentError(
                f"max_subqueries must be None or an integer >= 0, got {max_subqueries!r}"
            )
        key = str(solver).lower()
        if key not in _SOLVERS:
            raise InvalidArgumentError(
                f"unknown solver {solver!r}; expected one of {sorted(_SOLVERS)}"
            )
        self.weights: tuple[float, float, float, float] = ws  # type: ignore[assignment]
        self.time_limit = tl
        self.max_subqueries = None if max_subqueries is None else int(max_subqueries)
        self.solver = key
        if connect not in ("forest", "tree"):
            raise InvalidArgumentError(f"connect must be 'forest' or 'tree', got {connect!r}")
        self.connect = connect
        self.seed = 0
        self.last_objective: float | None = None  # objective value of the last solve

    def __repr__(self) -> str:
        return (
            f"MipStrategy(weights={self.weights}, time_limit={self.time_limit}, "
            f"max_subqueries={self.max_subqueries}, solver={self.solver!r}, connect={self.connect!r})"
        )

    # ------------------------------------------------------------------ model
    def _new_model(self):
        try:
            import mip
        except ImportError as err:  # pragma: no cover - dependency missing
            raise SolverError("python-mip is not installed (pip install 'jar-retrieval[mip]')") from err
        try:
            model = mip.Model(sense=mip.MAXIMIZE, solver_name=_SOLVERS[self.solver])
        except Exception as err:  # library not loadable
            raise SolverError(f"cannot start the {self.solver} solver: {err}") from err
        model.verbose = 0
        model.threads = 1
        model.seed = self.seed
        model.max_mip_gap = 1e-6
        model.max_mip_gap_abs = 1e-9
        return mip, model

    def select(self, signals: Signals, k: int, *, pinned: Sequence[int] = ()) -> Selection:
        """Solve the MIP for ``min(k, n)`` tables; see the module docstring for the output."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
        r, F, w = _check_signals(signals)
        n, m = r.shape[0], F.shape[0]
        K = min(int(k), n)
        pins = _check_pinned(pinned, n, K if n else 0)
        self.last_objective = None
        if K == 0:
            self.last_objective = 0.0
            return Selection(order=[], status="optimal")
        wsym = np.maximum(w, w.T)
        edges = (
            [(i, l) for i in range(n) for l in range(i + 1, n) if wsym[i, l] > 0]
            if K > 1
            else []
        )

        forest = self.connect == "forest" and K > 1
        status, label, sol = self._solve(r, F, wsym, edges, K, pins, relaxed=forest)
        if label not in ("optimal", "feasible"):
            return Selection(order=[], status=label)
        b, d, u, c, objective = sol
        chosen = [i for i in range(n) if b[i].x is not None and b[i].x >= 0.5]
        rest = sorted((i for i in chosen if i not in pins), key=lambda i: (-r[i], i))
        order = pins + rest
        D = np.array(
            [[1.0 if (d[j][i].x or 0.0) >= 0.5 else 0.0 for i in range(n)] for j in range(m)]
        ).reshape(m, n)
        U = np.array([1.0 if (uj.x or 0.0) >= 0.5 else 0.0 for uj in u])
        used = [(i, l) for (i, l), var in c.items() if (var.x or 0.0) >= 0.5]
        if forest and len(used) < K - 1:
            label = "relaxed"  # a forest of several trees: no connected K-set was better
        self.last_objective = objective
        return Selection(
            order=order,
            steps=self._steps(order, r, F, wsym, D, U, used),
            coverage=F[:, order].max(axis=1) if m else np.zeros(0),
            status=label,
        )

    def _solve(self, r, F, wsym, edges, K, pins, *, relaxed: bool):
        """Build and solve the program; ``(status, label, (b, d, u, c, objective))``.

        ``relaxed``: any number of chosen tables may be sources of the flow, so the K tables need
        not be connected: the objective counts the joins of a spanning forest over them
        (connect what can be connected) instead of a spanning tree.
        """
        n, m = r.shape[0], F.shape[0]
        w1, w2, w3, w4 = self.weights
        Q = m if self.max_subqueries is None else self.max_subqueries
        mip, model = self._new_model()
        xsum = mip.xsum
        B = mip.BINARY
        try:
            b = [model.add_var(var_type=B) for _ in range(n)]
            d = [[model.add_var(var_type=B) for _ in range(n)] for _ in range(m)]
            u = [model.add_var(var_type=B) for _ in range(m)]
            c = {e: model.add_var(var_type=B) for e in edges}
            s: list = []

            model += xsum(b) == K
            for p in pins:
                model += b[p] == 1
            for j in range(m):
                for i in range(n):
                    model += d[j][i] <= b[i]
                model += u[j] <= xsum(d[j])
            if m:
                model += xsum(d[j][i] for j in range(m) for i in range(n)) <= Q
            if K > 1:
                for (i, l), var in c.items():
                    model += var <= b[i]
                    model += var <= b[l]
                model += xsum(c.values()) <= K - 1
                s = [model.add_var(var_type=B) for _ in range(n)]
                for i in range(n):
                    model += s[i] <= b[i]
                if relaxed:
                    # any chosen table may be a source emitting up to K units; with at most
                    # K - (sources) joins, the joins used form a spanning forest, one tree a source
                    model += xsum(s) >= 1
                    model += xsum(c.values()) <= K - xsum(s)
                    emit = [model.add_var(lb=0.0, ub=float(K)) for _ in range(n)]
                    for i in range(n):
                        model += emit[i] <= K * s[i]
                else:
                    model += xsum(s) == 1
                    emit = [K * s[i] for i in range(n)]
                out_edges: list[list] = [[] for _ in range(n)]
                in_edges: list[list] = [[] for _ in range(n)]
                for (i, l), var in c.items():
                    f_il = model.add_var(lb=0.0)
                    f_li = model.add_var(lb=0.0)
                    model += f_il <= (K - 1) * var
                    model += f_li <= (K - 1) * var
                    out_edges[i].append(f_il)
                    in_edges[l].append(f_il)
                    out_edges[l].append(f_li)
                    in_edges[i].append(f_li)
                for i in range(n):
                    model += xsum(out_edges[i]) - xsum(in_edges[i]) == emit[i] - b[i]

            model.objective = (
                xsum(float(w1 * F[j, i]) * d[j][i] for j in range(m) for i in range(n))
                + xsum(float(w2) * uj for uj in u)
                + xsum(float(w4 * r[i]) * b[i] for i in range(n))
                + xsum(float(w3 * wsym[i, l]) * var for (i, l), var in c.items())
            )
            status = model.optimize(max_seconds=self.time_limit)
        except SolverError:
            raise
        except Exception as err:
            raise SolverError(f"{self.solver} failed: {err}") from err

        if status == mip.OptimizationStatus.ERROR:
            raise SolverError(f"{self.solver} returned an error")
        label = status_label(status, model.num_solutions > 0)
        if label not in ("optimal", "feasible"):
            return status, label, None
        return status, label, (b, d, u, c, float(model.objective_value))

    def _steps(self, order, r, F, wsym, D, U, used) -> list[StepGain]:
        w1, w2, w3, w4 = self.weights
        m = F.shape[0]
        best_owner = {}
        for j in range(m):
            if U[j] >= 0.5:
                assigned = [i for i in order if D[j, i] >= 0.5]
                if assigned:
                    best_owner[j] = max(assigned, key=lambda i: (F[j, i], -i))
        steps = []
        for i in order:
            cov = float(np.sum(F[:, i] * D[:, i])) if m else 0.0
            join = float(sum(wsym[a, b] for a, b in used if i in (a, b)))
            owned = sum(1 for j, o in best_owner.items() if o == i)
            total = w4 * float(r[i]) + w1 * cov + w2 * owned + w3 * join / 2.0
            steps.append(
                StepGain(
                    candidate=int(i),
                    coarse=float(r[i]),
                    coverage=cov,
                    join=join,
                    total=float(total),
                )
            )
        return steps
