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


# --- the bounds, with the module's constants written out (mutants of them survived) ---------

VARIED = "Thequickbrownfoxjumpsoverthelazydog0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def test_fifty_characters_are_judged_and_forty_nine_are_not() -> None:
    assert degenerate_reason("a" * 50) is not None
    assert degenerate_reason("a" * 49) is None


def test_two_bits_per_character_is_language_enough() -> None:
    # Four characters used equally: exactly 2 bits; three: log2(3) = 1.58.
    assert bits_per_char("abcd" * 20) == (2.0, 80)
    assert degenerate_reason("abcd" * 20) is None
    assert degenerate_reason("abc" * 30) is not None
    assert bits_per_char("   \n ") == (0.0, 0)
    assert degenerate_reason("  ") is None


def test_the_reason_names_the_most_frequent_character() -> None:
    reason = degenerate_reason("Title\n\n" + "b" * 10_000)
    assert reason is not None and "most often 'b'" in reason and "10,007 characters" in reason


def test_a_long_text_is_sampled_from_its_first_to_its_last_stretch() -> None:
    import math
    from collections import Counter

    tail = VARIED[:64]
    text = "a" * 200_000 + tail
    # 32 stretches of 64 characters, the first at the start and the last at the very end.
    sample = "a" * (31 * 64) + tail
    counts = Counter(sample)
    expected = -sum(c / len(sample) * math.log2(c / len(sample)) for c in counts.values())
    bits, counted = bits_per_char(text)
    assert counted == 2048
    assert bits == pytest.approx(expected)


def test_control_characters_at_five_percent_and_at_the_edges_of_the_ranges() -> None:
    from pipeline.lang.degenerate import control_share

    base = VARIED[:57]
    # C0 and C1 (0x7F to 0x9F) are control characters: 3 of 60 is 5%, enough. (0x1C-0x1F are
    # white space to str.split, so they never reach the count.)
    reason = degenerate_reason(base + "\x1b\x7f\x9f")
    assert reason is not None and "control characters" in reason
    # Their neighbours are not ("~" 0x7E, "¡" 0xA1), nor are 2 of 60.
    assert degenerate_reason(base + "~¡~") is None
    assert degenerate_reason(base + "x\x1b\x9f") is None
    # Text under 50 characters is never judged, controls or not.
    assert degenerate_reason(VARIED[:40] + "\x01" * 9) is None
    assert control_share("\x01abc") == 0.25


def test_a_binary_body_is_named_by_its_bytes() -> None:
    # The walks drop control characters from the text (pipeline.html.controls): binary bytes
    # served as a page are named by their own control bytes, about a tenth of random bytes.
    import random

    from pipeline.lang.degenerate import body_control_share

    prose = "The river runs through the old town, and the people along its banks tell its story. "
    text = prose * 5
    binary = random.Random(3).randbytes(100_000)
    assert 0.09 < body_control_share(binary) < 0.12
    reason = degenerate_reason(text, binary, "utf-8")
    assert reason is not None and "of the body's bytes are control characters" in reason
    page = f"<html><body><p>{text}</p>\x0c</body></html>".encode()
    assert body_control_share(page) == 0.0
    assert degenerate_reason(text, page, "utf-8") is None
    # UTF-16's ASCII characters carry NUL bytes: such a body is judged by its text alone.
    wide = page.decode().encode("utf-16-le")
    assert body_control_share(wide) > 0.4
    assert degenerate_reason(text, wide, "utf-16-le") is None
    assert degenerate_reason(text, wide, "UTF_16") is None
    # Short text is never judged, whatever the body.
    assert degenerate_reason("short", binary, "utf-8") is None
