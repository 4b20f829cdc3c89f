"""The repeat rule (`pipeline.rules.repeats`): a kept block whose lower-cased text repeats an
earlier kept block's goes, from `REPEAT_MIN_CHARS` characters on; shorter labels stay."""

from __future__ import annotations

import numpy as np

from pipeline.rules.repeats import REPEAT_MIN_CHARS, without_repeats


def test_the_length_bound_is_inclusive() -> None:
    # A text of exactly `REPEAT_MIN_CHARS` characters is a paragraph: its second copy goes.
    at_bound = "Chapter 12"
    assert len(at_bound) == REPEAT_MIN_CHARS
    keep = np.ones(2, dtype=bool)
    assert without_repeats(keep, [at_bound, at_bound.upper()]).tolist() == [True, False]
    # A character shorter it is a label, which the reference may hold twice.
    assert without_repeats(keep, ["Chapter 9", "CHAPTER 9"]).tolist() == [True, True]
