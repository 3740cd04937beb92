"""The command's log lines: ``jar-retrieval: message`` on stderr (``jar-retrieval: warning: message``
for a warning), once each, the model libraries' included."""
from __future__ import annotations

import importlib.abc
import logging
import os
import sys
from typing import Any, Callable

from jar_core.cli.printing import PROG

__all__ = ["setup_logging"]


def setup_logging(verbose: bool, quiet: bool = False) -> None:
    """Log lines as ``jar-retrieval: message`` (``jar-retrieval: warning: message``) on stderr through the root logger's one handler
    (INFO with ``--verbose``, else WARNING and the model libraries' loggers ERROR). Without
    ``--verbose``, or with ``--quiet``, huggingface_hub shows no download progress bars.

    huggingface_hub gives its logger a stream handler of its own when imported, and that logger
    also propagates to the root: every line of it would be printed twice. The handler is removed
    here, the lines go to the root's.

    transformers (and sentence-transformers through it) gives its logger a handler of its own too,
    with lines as ``[transformers] message``, and keeps them from the root unless ``$CI`` is set:
    then both print them, each line twice. That handler is removed and the logger propagates (with
    or without ``--verbose``) as soon as transformers is imported: importing it here would add a
    second to every run that never loads it (the ONNX backend). Its lines are then
    ``jar-retrieval: message`` once, whatever ``$CI``; without ``--verbose`` errors only."""
    handler = logging.StreamHandler()
    handler.setFormatter(_LevelFormatter())
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[handler])
    if not verbose:  # before huggingface_hub is imported: it reads them then
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if not verbose or quiet:
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        import huggingface_hub.utils.logging  # noqa: F401 - adds the handler (once, on import)
    except ImportError:  # pragma: no cover - a dependency of sentence-transformers
        pass
    hub = logging.getLogger("huggingface_hub")
    for handler in list(hub.handlers):
        hub.removeHandler(handler)
    hub.propagate = True
    _after_import("transformers.utils.logging", _transformers_to_root)
    if not verbose:
        for noisy in ("sentence_transformers", "transformers", "huggingface_hub"):
            logging.getLogger(noisy).setLevel(logging.ERROR)


class _LevelFormatter(logging.Formatter):
    """``jar-retrieval: message``, and ``jar-retrieval: warning: message`` (``error:``) for a
    warning or an error, as the command's own warnings are printed."""

    def format(self, record: logging.LogRecord) -> str:
        level = "" if record.levelno < logging.WARNING else ("warning: " if record.levelno < logging.ERROR else "error: ")
        return f"{PROG}: {level}{super().format(record)}"


def _transformers_to_root(tlog: Any) -> None:
    """transformers' log lines through the root's handler only (``tlog``: ``transformers.utils.logging``)."""
    tlog.disable_default_handler()
    tlog.enable_propagation()


def _after_import(name: str, then: Callable[[Any], None]) -> None:
    """``then(module)`` now if the module ``name`` is imported, else right after its import.
    An error of ``then`` is logged and leaves the module as it is."""
    def run(module: Any) -> None:
        try:
            then(module)
        except Exception as e:  # noqa: BLE001 - another version of the library: its own format, then
            logging.getLogger(__name__).info("could not set up the log lines of %s: %s", name, e)

    module = sys.modules.get(name)
    if module is not None:
        run(module)
    elif not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, run))


class _AfterImport(importlib.abc.MetaPathFinder):
    """A finder that, asked for the module ``name``, steps aside (once) and wraps the
    ``exec_module`` of the loader the other finders give, so that ``then(module)`` runs once the
    module is executed."""

    def __init__(self, name: str, then: Callable[[Any], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name or self not in sys.meta_path:
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            spec = finder.find_spec(fullname, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then(module: Any) -> None:
            exec_module(module)
            self.then(module)

        try:
            loader.exec_module = exec_then  # this loader instance loads this one module
        except AttributeError:  # pragma: no cover - a loader that takes no attribute: left as it is
            pass
        return spec
