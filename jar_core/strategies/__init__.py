"""Search strategies: how K tables are chosen from the signals.

``join-aware`` (the default: the paper's greedy with a connection gain), ``greedy`` (the
paper's algorithm) and ``dense`` live here; ``mip`` (JAR's exact
program) and ``crush`` (CRUSH4SQL) are the baselines. All implement :class:`SearchStrategy`.
"""
from jar_core.strategies.base import SearchStrategy, Selection, StepGain
from jar_core.strategies.greedy import (
    DEFAULT_WEIGHTS, JOIN_AWARE_WEIGHTS, DenseStrategy, GreedyStrategy, JoinAwareStrategy,
)

__all__ = [
    "SearchStrategy", "Selection", "StepGain", "GreedyStrategy", "JoinAwareStrategy", "DenseStrategy",
    "DEFAULT_WEIGHTS", "JOIN_AWARE_WEIGHTS", "get_strategy", "STRATEGIES", "WEIGHTED_STRATEGIES",
]

#: Strategy names :func:`get_strategy` accepts.
STRATEGIES = ("join-aware", "greedy", "dense", "mip", "crush")
#: The strategies with weights ``(l_cov, l_join, l_coarse)``: the greedy searches.
WEIGHTED_STRATEGIES = ("join-aware", "greedy")


def get_strategy(name: str, **options: object) -> SearchStrategy:
    """A strategy by name: ``join-aware`` (the default), ``greedy`` (the paper's), ``dense``, ``mip`` or ``crush``."""
    from jar_core.errors import InvalidArgumentError

    if name == "join-aware":
        return JoinAwareStrategy(**options)  # type: ignore[arg-type]
    if name == "greedy":
        return GreedyStrategy(**options)  # type: ignore[arg-type]
    if name == "dense":
        return DenseStrategy()
    if name == "mip":
        from jar_core.strategies.mip import MipStrategy

        return MipStrategy(**options)  # type: ignore[arg-type]
    if name == "crush":
        from jar_core.strategies.crush import CrushStrategy

        return CrushStrategy(**options)  # type: ignore[arg-type]
    raise InvalidArgumentError(f"unknown strategy {name!r} (choose {', '.join(STRATEGIES)})")
