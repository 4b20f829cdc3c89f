"""The cleaner protocol and the registry that names them.

A cleaner labels the blocks of one page; it never parses HTML, so every cleaner labels the same
blocks and their outputs are comparable block for block.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pipeline.types import Block, LabeledBlock


class Cleaner(Protocol):
    """Labels blocks. ``stoplist`` is None in language-independent mode.

    A cleaner may also declare ``needs_runs`` (BTE's token/tag runs in `Block.runs`) and
    ``needs_page_cues``: then `pipeline.clean_html` passes ``cues=`` to `label`, what the page
    declares about itself and its URL's shape (`pipeline.page_cues`)."""

    name: str

    def label(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None
    ) -> list[LabeledBlock]: ...

    def params(self) -> dict[str, Any]: ...


# The cleaner used when none is named: by `pipeline.clean_html`, the job and the CLI. Chosen by
# measurement on the pages no model was trained on (BENCHMARKS.md): the learned `neighbours`
# cleaner has the best word F1 on both dev sets (wcxb 0.855, multilingual 0.945; jusText 0.677 /
# 0.832) and empties the fewest pages, at about 1.5 times jusText's CPU time per page.
DEFAULT_CLEANER = "neighbours"

_REGISTRY: dict[str, Callable[..., Cleaner]] = {}


def model_params(threshold: float | None, model_path: str | None) -> dict[str, Any]:
    """The parameters a model-backed cleaner reports: only those set, so that the defaults
    (the shipped model and its tuned decision rule) record as ``{}``."""
    out: dict[str, Any] = {}
    if threshold is not None:
        out["threshold"] = threshold
    if model_path is not None:
        out["model"] = model_path
    return out


def register(name: str) -> Callable[[Callable[..., Cleaner]], Callable[..., Cleaner]]:
    """Class decorator: make a cleaner constructible by name."""

    def add(factory: Callable[..., Cleaner]) -> Callable[..., Cleaner]:
        if name in _REGISTRY:
            raise ValueError(f"cleaner {name!r} is registered twice")
        _REGISTRY[name] = factory
        return factory

    return add


def _load_builtin() -> None:
    # Importing the modules runs their @register decorators.
    import pipeline.bte
    import pipeline.density
    import pipeline.justext
    import pipeline.kimatu
    import pipeline.learned
    import pipeline.ngram  # noqa: F401  (imported for its @register side effect)


def available() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def make_cleaner(name: str, **params: Any) -> Cleaner:
    """Build the cleaner called ``name`` with its parameters; unknown names or params raise."""
    _load_builtin()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise ValueError(f"unknown cleaner {name!r}; available: {known}") from None
    return factory(**params)
