"""A page of a few short fragments has no main content (`pipeline.rules.fragments`): the words
kept in all and the longest kept block decide, counted as the stoplists count words."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.rules import fragments
from pipeline.rules.fragments import MAX_WORDS, SENTENCE_WORDS, SHORT_SENTENCE_WORDS
from pipeline.types import Block, LabeledBlock, Verdict

# What the HTML of a shop's page drawn by script shows: its frame and an empty mount point.
SHELL = (
    "<html><head><title>Shop</title></head><body>"
    "<nav><a href='/'>Home</a> <a href='/help'>Help</a></nav>"
    "<div class='drawer'><h2>Cart (0)</h2><p>Loading...</p><p>Subtotal</p><p>$0 USD</p></div>"
    "<div id='root'></div></body></html>"
)


def blocks_of(body: str) -> list[Block]:
    return segment(parse(f"<html><body>{body}</body></html>".encode()), record_runs=True)


def words(n: int, start: int = 0) -> str:
    return " ".join(f"w{i}" for i in range(start, start + n))


def labelled(blocks: list[Block], kept: list[bool]) -> list[LabeledBlock]:
    verdicts = [Verdict.GOOD if k else Verdict.BAD for k in kept]
    return [LabeledBlock(b, v) for b, v in zip(blocks, verdicts, strict=True)]


def decided(texts: list[str]) -> tuple[bool, tuple[str, ...]]:
    """Whether the rule empties a page whose blocks ``texts`` are all kept."""
    blocks = blocks_of("".join(f"<p>{t}</p>" for t in texts))
    assert [b.text for b in blocks] == texts
    out, notes = fragments.drop(labelled(blocks, [True] * len(blocks)))
    kept = [lb.verdict is Verdict.GOOD for lb in out]
    assert all(kept) or not any(kept), "all or nothing"
    assert [lb.block for lb in out] == blocks
    return not any(kept), notes


def test_an_app_shells_frame_is_no_content() -> None:
    # What the HTML of a page drawn by script shows: a frame, a loading line, a cart.
    emptied, notes = decided(["Cart (0)", "Loading...", "Subtotal", "$0 USD", "Help"])
    assert emptied and notes == ("fragments_dropped",)


@pytest.mark.parametrize(
    ("texts", "emptied"),
    [
        # Under MAX_WORDS in all, each under a sentence: dropped.
        ([words(5), words(5, 5), words(5, 10), words(5, 15), words(MAX_WORDS - 21, 20)], True),
        # MAX_WORDS in all: kept.
        ([words(5), words(5, 5), words(5, 10), words(5, 15), words(MAX_WORDS - 20, 20)], False),
        # One block of a sentence's length keeps the page, however little else there is.
        ([words(SENTENCE_WORDS)], False),
        ([words(SENTENCE_WORDS - 1)], True),
        (["Home", words(SENTENCE_WORDS, 1)], False),
        # A shorter block that ends as a sentence ends is one too; without the end it is not.
        (["Home", words(SHORT_SENTENCE_WORDS) + "."], False),
        (["Home", words(SHORT_SENTENCE_WORDS) + '?"'], False),
        (["Home", words(SHORT_SENTENCE_WORDS - 1) + "."], True),
        (["Home", words(SHORT_SENTENCE_WORDS)], True),
        (["Loading...", "Cart (0)"], True),
    ],
)
def test_the_bounds(texts: list[str], emptied: bool) -> None:
    assert sum(len(t.split()) for t in texts) < MAX_WORDS or not emptied
    assert decided(texts)[0] is emptied


def test_unspaced_script_is_counted_by_characters() -> None:
    # One whitespace-free sentence of 40 Chinese characters is 20 words, not one: a short page
    # in Chinese is a page, as the same page in English is.
    sentence = "今天上午市政府召开新闻发布会介绍了今年前三季度全市经济运行情况和下一步工作安排重点"
    assert len(sentence) >= 2 * SENTENCE_WORDS
    assert decided([sentence])[0] is False
    assert decided(["首页", "帮助", "购物车"])[0] is True
    # A short sentence with a CJK full stop is a sentence: 12 characters, 6 words.
    assert decided(["首页", "简历无法下载请稍后再试。"])[0] is False
    assert decided(["首页", "简历无法下载请稍后再试"])[0] is True


def test_a_frame_with_a_notice_sentence_keeps_it() -> None:
    # The price of keeping short real pages: the notice of a page drawn by script is a sentence.
    assert decided(["Home", "You need to enable JavaScript to run this app."])[0] is False


def test_blocks_the_model_left_out_do_not_count() -> None:
    blocks = blocks_of(f"<p>Home</p><p>{words(40)}</p><p>Help</p>")
    out, notes = fragments.drop(labelled(blocks, [True, False, True]))
    assert [lb.verdict for lb in out] == [Verdict.BAD] * 3 and notes == ("fragments_dropped",)
    nothing = labelled(blocks, [False] * 3)
    assert fragments.drop(nothing) == (nothing, ())


def test_long_words_over_the_character_bound_are_left_alone() -> None:
    # Past 15 characters a word on average, the words are not counted: left as the model said.
    long_words = " ".join("x" * 40 for _ in range(12))
    assert decided([long_words])[0] is False


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 30), st.booleans()), min_size=1, max_size=8))
def test_dropped_exactly_when_few_words_and_no_sentence(sizes: list[tuple[int, bool]]) -> None:
    texts = [words(n, 100 * i) + ("." if stop else "") for i, (n, stop) in enumerate(sizes)]
    sentence = any(n >= SENTENCE_WORDS or (stop and n >= SHORT_SENTENCE_WORDS) for n, stop in sizes)
    expected = sum(n for n, _ in sizes) < MAX_WORDS and not sentence
    assert decided(texts)[0] is expected


def test_the_default_cleaner_drops_a_shells_frame_and_says_so() -> None:
    result = clean_html(SHELL, url="https://shop.example/p/1")
    assert result.text == "" and "fragments_dropped" in result.notes
    kept = clean_html(SHELL, url="https://shop.example/p/1", fragments=False)
    assert kept.text != "" and "fragments_dropped" not in kept.notes


def test_the_option_is_recorded_only_when_off_and_must_be_a_boolean() -> None:
    from pipeline.learned.neighbours import NeighboursCleaner

    assert "fragments" not in NeighboursCleaner().params()
    assert NeighboursCleaner(fragments=False).params() == {"fragments": False}
    with pytest.raises(ValueError, match="fragments must be true or false, got 'no'"):
        NeighboursCleaner(fragments="no")  # type: ignore[arg-type]


def test_comments_and_other_labels_are_left_alone() -> None:
    blocks = blocks_of("<p>Home</p><p>Help</p><p>Nice post, thanks</p>")
    labeled = [
        LabeledBlock(blocks[0], Verdict.GOOD),
        LabeledBlock(blocks[1], Verdict.BAD),
        LabeledBlock(blocks[2], Verdict.COMMENT),
    ]
    out, notes = fragments.drop(labeled)
    assert [lb.verdict for lb in out] == [Verdict.BAD, Verdict.BAD, Verdict.COMMENT]
    assert notes == ("fragments_dropped",)
    unchanged, none = fragments.drop(out)  # nothing kept: nothing to drop
    assert unchanged is out and none == ()


def test_the_character_bound_is_inclusive() -> None:
    # Two blocks of 12 words whose characters sum to exactly the bound are counted (and
    # dropped); one character more and they are left as the model said.
    def pair(extra: int) -> list[str]:
        head = " ".join(["abcdefghijklmn"] * 11)
        first = head + " " + "z" * 14
        second = head + " " + "y" * (fragments._MAX_CHARS - len(first) - len(head) - 1 + extra)
        return [first, second]

    assert sum(map(len, pair(0))) == fragments._MAX_CHARS
    assert decided(pair(0))[0] is True
    assert decided(pair(1))[0] is False


def test_the_docs_state_the_bounds_the_code_uses() -> None:
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    cleaners = " ".join((docs / "cleaners.md").read_text(encoding="utf-8").split())
    library = " ".join((docs / "library.md").read_text(encoding="utf-8").split())
    assert (
        f"is under {MAX_WORDS} words and no block of it is a sentence ({SENTENCE_WORDS} words or "
        f"more, or {SHORT_SENTENCE_WORDS} or more ending with a full stop" in cleaners
    )
    assert f"(under {MAX_WORDS} words, no sentence among them)" in library
    assert fragments._MAX_CHARS == 15 * MAX_WORDS  # the module's reason: 15 characters a word
