"""warcclean: WARC archives to a clean, per-block-labelled text corpus."""

from pipeline.clean import clean_html
from pipeline.config import Limits
from pipeline.types import Block, CfClass, CleanResult, LabeledBlock, LangGuess, Verdict

__version__ = "0.1.0"

__all__ = [
    "Block",
    "CfClass",
    "CleanResult",
    "LabeledBlock",
    "LangGuess",
    "Limits",
    "Verdict",
    "__version__",
    "clean_html",
]
