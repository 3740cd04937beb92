"""Search strategies: how K tables are chosen from the signals.

``greedy`` (the paper's algorithm, the default) and ``dense`` live here; ``mip`` (JAR's exact
program) and ``crush`` (CRUSH4SQL) are the baselines. All implement :class:`SearchStrategy`.
"""
from jar_core.strategies.base import SearchStrategy, Selection, StepGain
from jar_core.strategies.greedy import DEFAULT_WEIGHTS, DenseStrategy, GreedyStrategy

__all__ = ["SearchStrategy", "Selection", "StepGain", "GreedyStrategy", "DenseStrategy", "DEFAULT_WEIGHTS", "get_strategy"]


def get_strategy(name: str, **options: object) -> SearchStrategy:
    """A strategy by name: ``greedy``, ``dense``, ``mip`` or ``crush``."""
    from jar_core.errors import InvalidArgumentError

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
    raise InvalidArgumentError(f"unknown strategy {name!r} (choose greedy, dense, mip or crush)")
