"""The cleaner protocol and the registry that names them.

A cleaner labels the blocks of one page; it never parses HTML, so every cleaner labels the same
blocks and their outputs are comparable block for block.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from pipeline.types import Block, LabeledBlock


class Cleaner(Protocol):
    """Labels blocks. ``stoplist`` is None in language-independent mode.

    A cleaner may also declare ``needs_runs`` (BTE's token/tag runs in `Block.runs`) and
    ``needs_page_cues``: then `pipeline.clean_html` passes ``cues=`` to `label`, what the page
    declares about itself and its URL's shape (`pipeline.html.page_cues`), and
    ``needs_language``: then it passes ``language=``, the page's ISO 639 code, and
    ``needs_tree``: then it passes ``tree=``, the parsed page the blocks were cut from, for a
    cleaner that judges other units than blocks (a published method's own unit, such as Pal's
    source lines: `pipeline.cleaners.units`) and maps its verdicts back onto the blocks, and
    ``needs_head``: then it passes ``head=``, what the page's head says
    (`pipeline.html.metadata.HeadFacts`: its titles, for the title heading). A cleaner that
    declares these must still label blocks when ``tree`` or ``head`` is not given. One with a
    ``label_noted`` method is called through it instead of `label`: it returns the labelled
    blocks and notes about the page (`CleanResult.notes`).

    ``needs_*`` may be class or instance attributes: a cleaner whose variants differ in what
    they need (``variant="paper"``) sets them when it is built."""

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

# Every cleaner by name, as "module:class". The registry imports a cleaner's module only when
# that cleaner is asked for, and no cleaner imports the registry to be listed: the learned
# cleaner sits above this package (it reads jusText's classes), and a table keeps the import
# graph pointing one way.
_CLEANERS: dict[str, str] = {
    "bte": "pipeline.cleaners.bte:BteCleaner",
    "density-fixed": "pipeline.cleaners.density:FixedDensityCleaner",
    "density-lm": "pipeline.cleaners.density_lm:DensityLmCleaner",
    "density-mean": "pipeline.cleaners.density:MeanDensityCleaner",
    "density-mlp": "pipeline.learned.density_mlp:DensityMlpCleaner",
    "density-stddev": "pipeline.cleaners.density:StddevDensityCleaner",
    "justext": "pipeline.cleaners.justext:JusTextCleaner",
    "kimatu": "pipeline.cleaners.kimatu:KimatuCleaner",
    "neighbours": "pipeline.learned.neighbours:NeighboursCleaner",
    "neighbours-fast": "pipeline.learned.neighbours:FastNeighboursCleaner",
    "ngram-lm": "pipeline.cleaners.ngram:NgramCleaner",
}


def model_params(threshold: float | None, model_path: str | None) -> dict[str, Any]:
    """The parameters a model-backed cleaner reports: only those set, so that the defaults
    (the shipped model and its tuned decision rule) record as ``{}``."""
    out: dict[str, Any] = {}
    if threshold is not None:
        out["threshold"] = threshold
    if model_path is not None:
        out["model"] = model_path
    return out


def available() -> list[str]:
    return sorted(_CLEANERS)


def cleaner_class(name: str) -> Callable[..., Cleaner]:
    """The class registered as ``name`` (its module is imported now); unknown names raise."""
    try:
        target = _CLEANERS[name]
    except KeyError:
        known = ", ".join(available())
        raise ValueError(f"unknown cleaner {name!r}; available: {known}") from None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def parameters(name: str) -> dict[str, inspect.Parameter] | None:
    """The keyword parameters of the cleaner called ``name``, from its constructor's signature;
    None when it takes any keyword (``**options``) without declaring which."""
    signature = inspect.signature(cleaner_class(name))
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()):
        return None
    return {p.name: p for p in signature.parameters.values() if p.kind in _KEYWORD}


def annotation(param: inspect.Parameter) -> str:
    """A parameter's type as written (``float | None``); "any" when it has none."""
    note = param.annotation
    if note is inspect.Parameter.empty:
        return "any"
    return note if isinstance(note, str) else getattr(note, "__name__", str(note))


def describe_parameters(name: str) -> str:
    """The parameters of cleaner ``name`` as a user reads them: ``threshold (float | None,
    default null), ...``."""
    params = parameters(name)
    if params is None:
        return f"cleaner {name!r} does not declare its parameters"
    if not params:
        return f"cleaner {name!r} takes no parameters"
    items = [
        f"{p.name} ({annotation(p)}, default {json.dumps(p.default, default=str)})"
        for p in params.values()
    ]
    return f"cleaner {name!r} takes: {', '.join(items)}"


def check_names(name: str, given: Iterable[str]) -> None:
    """Raise `TypeError` when cleaner ``name`` takes none of ``given``'s names, naming the ones
    it takes (Python's own error for an unexpected keyword names none of them)."""
    params = parameters(name)
    if params is None:
        return
    unknown = sorted(set(given) - set(params))
    if unknown:
        which = ", ".join(repr(k) for k in unknown)
        raise TypeError(f"no parameter {which}: {describe_parameters(name)}")


def make_cleaner(name: str, **params: Any) -> Cleaner:
    """Build the cleaner called ``name`` with its parameters; unknown names or params raise."""
    check_names(name, params)
    return cleaner_class(name)(**params)
