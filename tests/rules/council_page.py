"""A small page of body paragraphs, segmented, for the rules that keep a block beside the kept
text (`pipeline.rules.title_heading`, `pipeline.rules.description_lead`): the body is what the
model kept, the block under test what it dropped."""

from __future__ import annotations

import numpy as np

from pipeline.html.segment import parse, segment
from pipeline.types import Block

BODY = (
    "The council met on Tuesday evening to discuss the plans for the new library, which has "
    "been delayed twice since the first designs were shown to the public three years ago. "
    "Residents asked why the costs had grown so quickly. "
)


def blocks_of(body: str) -> list[Block]:
    """The blocks of a page whose body is ``body``."""
    return segment(parse(f"<html><body>{body}</body></html>".encode()), record_runs=True)


def kept_body(blocks: list[Block]) -> np.ndarray:
    """The model's answer that keeps the body's paragraphs and nothing else."""
    return np.array([b.text.startswith("The council") for b in blocks])


def texts(keep: np.ndarray, blocks: list[Block]) -> list[str]:
    """The texts ``keep`` keeps, in order."""
    return [b.text for b, k in zip(blocks, keep, strict=True) if k]
