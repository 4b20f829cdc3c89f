"""warcclean: WARC archives to a clean, per-block-labelled text corpus.

The public names are imported lazily so that ``import pipeline.types`` (as every worker task
does) does not load the parser, language detector and stoplists until they are needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "clean_html": "pipeline.clean",
    "process_warc": "pipeline.run",
    "JobConfig": "pipeline.jobconfig",
    "Limits": "pipeline.config",
    "Block": "pipeline.types",
    "CfClass": "pipeline.types",
    "CleanResult": "pipeline.types",
    "LabeledBlock": "pipeline.types",
    "LangGuess": "pipeline.types",
    "Verdict": "pipeline.types",
}

__all__ = [
    "Block",
    "CfClass",
    "CleanResult",
    "JobConfig",
    "LabeledBlock",
    "LangGuess",
    "Limits",
    "Verdict",
    "__version__",
    "clean_html",
    "process_warc",
]

if TYPE_CHECKING:
    from pipeline.clean import clean_html
    from pipeline.config import Limits
    from pipeline.jobconfig import JobConfig
    from pipeline.run import process_warc
    from pipeline.types import Block, CfClass, CleanResult, LabeledBlock, LangGuess, Verdict


def __getattr__(name: str) -> Any:
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}") from None
    return getattr(importlib.import_module(module), name)
