"""`degenerate_reason`: text that is not language is named, real text of any script is not."""

from __future__ import annotations

import pytest

from pipeline.lang.degenerate import MIN_BITS, MIN_CHARS, bits_per_char, degenerate_reason

SENTENCE = "The old stone bridge in the middle of the town was closed for repairs last spring. "


@pytest.mark.parametrize(
    "text",
    [
        "a" * 10_000_000,  # a decompression bomb of one letter
        "Title\n\n" + "a" * 100_000,  # with a real line in front
        "ab" * 50_000,
        "abc" * 40,
        "0 1 " * 1000,
        "=" * 60,
    ],
)
def test_degenerate_text_is_named(text: str) -> None:
    reason = degenerate_reason(text)
    assert reason is not None and "bits per character" in reason
    assert bits_per_char(text)[0] < MIN_BITS


@pytest.mark.parametrize(
    "text",
    [
        SENTENCE,
        SENTENCE * 20_000,  # long: judged on a sample of stretches
        "Mississippi",  # a real word of low entropy: too short to judge
        "a" * (MIN_CHARS - 1),
        "東京都の古い石橋は、昨年の春から修理のために閉鎖されている。北岸に住む人々は遠回りをしている。",
        "Старый каменный мост в центре города закрыт на ремонт с прошлой весны.",
    ],
)
def test_real_or_short_text_is_not(text: str) -> None:
    assert degenerate_reason(text) is None


@pytest.mark.parametrize("period", [16, 64, 84])
def test_a_long_text_is_judged_on_stretches_as_it_is_in_full(period: int) -> None:
    # Every n-th character of a periodic text can be one letter; stretches of it never are.
    piece = SENTENCE[:period]
    text = piece * (1_000_000 // period)
    bits, counted = bits_per_char(text)
    assert counted < 4096
    assert bits == pytest.approx(bits_per_char(piece * 20)[0], abs=0.3)


def test_binary_bytes_decoded_as_text_are_degenerate() -> None:
    import random

    text = random.Random(3).randbytes(4000).decode("latin-1")
    reason = degenerate_reason(text)
    assert reason is not None and "control characters" in reason


def test_a_few_control_characters_in_prose_are_not_degenerate() -> None:
    prose = "The committee met on Tuesday and agreed the budget for next year. " * 20
    # a stray form feed and bell, as real pages have (under 1%)
    assert degenerate_reason(prose[:600] + "\x07\x0b" + prose[600:]) is None
