"""Word and stopword counting: jusText's rule for spaced scripts, segmentation for unspaced ones."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.lang.stoplists import stoplist
from pipeline.lang.words import (
    CJK_CHARS_PER_WORD,
    SEA_CHARS_PER_WORD,
    count_words,
    han_kana_chars,
)

EN = stoplist("en")
ZH = stoplist("zh")
JA = stoplist("ja")
TH = stoplist("th")

# Letters of spaced scripts, punctuation and every kind of whitespace, no unspaced script.
SPACED_TEXT = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs",),
        blacklist_characters="".join(
            map(
                chr,
                [
                    *range(0x0E00, 0x0F00),  # Thai, Lao
                    *range(0x1000, 0x10A0),  # Myanmar
                    *range(0x1780, 0x1800),  # Khmer
                    *range(0x19E0, 0x1A00),  # Khmer symbols
                ],
            )
        ),
        max_codepoint=0x2FFF,
    ),
    max_size=200,
)
ANY_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from("的一个我们是了這們ทำที่และのはですကို \n\t。，、"),
    ),
    max_size=200,
)


def justext_count(text: str, stopwords: frozenset[str]) -> tuple[int, int]:
    """jusText 3.0.2's Paragraph.words_count / stopwords_count formulas."""
    return len(text.split()), sum(word.lower() in stopwords for word in text.split())


# --- spaced scripts: exactly jusText -----------------------------------------------------------


def test_latin_words_and_stopwords() -> None:
    assert count_words("The cat sat on the mat.", EN) == (6, 3)  # the, on, the
    assert count_words("The cat sat on the mat.", None) == (6, 0)
    assert count_words("", EN) == (0, 0)
    assert count_words("   \n\t ", EN) == (0, 0)


def test_punctuation_stays_attached_as_in_justext() -> None:
    # "the," is not "the": jusText does not strip punctuation, and neither do we.
    assert count_words("the, the. the", EN) == (3, 1)
    assert count_words("— | —", EN) == (3, 0)


def test_case_insensitive() -> None:
    assert count_words("THE And oF", EN) == (3, 3)


@settings(max_examples=200, deadline=None)
@given(SPACED_TEXT)
def test_spaced_text_counts_like_justext(text: str) -> None:
    assert count_words(text, None) == (len(text.split()), 0)
    assert count_words(text, EN) == justext_count(text, EN)


def test_korean_is_spaced() -> None:
    ko = stoplist("ko")
    words, _ = count_words("나는 오늘 학교에 간다", ko)
    assert words == 4


def test_against_justext_paragraph() -> None:
    paragraph = pytest.importorskip("justext.paragraph")

    class _Path:
        dom = "p"
        xpath = "/html/body/p"

    text = "It was the best of times, it was the worst of times; it was THE age of wisdom"
    p = paragraph.Paragraph(_Path())
    p.append_text(text)
    assert count_words(text, EN) == (p.words_count, p.stopwords_count(EN))


# --- unspaced scripts ----------------------------------------------------------------------------


def test_greedy_longest_match() -> None:
    stops = frozenset({"一", "一个", "的"})
    assert count_words("一个人的", stops) == (3, 2)  # 一个 | 人 | 的


def test_unmatched_runs_count_per_typical_word_length() -> None:
    none: frozenset[str] = frozenset()
    assert CJK_CHARS_PER_WORD == 2 and SEA_CHARS_PER_WORD == 4
    assert count_words("中华人民共和国", none) == (4, 0)  # ceil(7 / 2)
    assert count_words("中华人民共和国", None) == (4, 0)
    assert count_words("国", None) == (1, 0)
    assert count_words("ภาษาไทย", None) == (2, 0)  # 7 code points, ceil(7 / 4)


def test_stopwords_split_runs() -> None:
    stops = frozenset({"的"})
    # 美丽 | 的 | 国家: each run counted on its own, not merged across the stopword.
    assert count_words("美丽的国家", stops) == (3, 1)
    assert count_words("美的国", stops) == (3, 1)


def test_thai_segmentation() -> None:
    stops = frozenset({"และ", "ที่"})
    assert count_words("แมวและหมา", stops) == (3, 1)  # แมว | และ | หมา


def test_japanese_particles() -> None:
    stops = frozenset({"の", "は", "です"})
    assert count_words("東京の天気は晴れです", stops) == (6, 3)  # 東京 の 天気 は 晴れ です


def test_cjk_punctuation_is_no_word() -> None:
    assert count_words("你好，世界。", None) == (2, 0)
    assert count_words("你好 。", None) == (2, 0)  # "。" alone is a spaced token: jusText rule


def test_mixed_token_and_mixed_text() -> None:
    stops = frozenset({"的", "the"})
    assert count_words("iPhone的价格", stops) == (3, 1)  # iphone | 的 | 价格
    assert count_words("the 的 - 价格", stops) == (4, 2)  # Latin tokens keep jusText's rule
    assert count_words("2024年", stops) == (2, 0)


def test_spaced_stopwords_beside_unspaced_script() -> None:
    stops = frozenset({"the", "的"})
    # Whole Latin tokens in a text that has Han: two stopwords, "cat" none.
    assert count_words("the the cat 价格", stops) == (4, 2)
    # Latin glued to Han: the piece before the Han run is a word, and a stopword when listed.
    assert count_words("the猫 the猫", stops) == (4, 2)  # the | 猫 | the | 猫
    # Latin entries are never matched inside other words, as the Han matcher matches its own.
    assert count_words("other 猫", stops) == (2, 0)


@pytest.mark.parametrize(
    ("char", "per_word"),
    [
        ("\ua9e0", SEA_CHARS_PER_WORD),  # first of Myanmar Extended-B
        ("\uaa7f", SEA_CHARS_PER_WORD),  # last of Myanmar Extended-A
        ("\u0e01", SEA_CHARS_PER_WORD),  # Thai
        ("\u3005", CJK_CHARS_PER_WORD),  # 々, the first character of the CJK ranges
        ("\u30a2", CJK_CHARS_PER_WORD),  # Katakana
    ],
)
def test_run_length_per_word_follows_the_script(char: str, per_word: int) -> None:
    assert count_words(char * 4, None) == (4 // per_word, 0)


def test_han_kana_chars() -> None:
    assert han_kana_chars("plain ASCII text") == 0
    assert han_kana_chars("Tokyo 東京 とうきょう トウキョウ, Seoul 서울") == 2 + 5 + 5


def test_stopwords_only_of_the_given_list() -> None:
    assert count_words("我们的国家", EN) == (3, 0)
    assert count_words("the cat", ZH) == (2, 0)


def test_traditional_chinese_matches() -> None:
    words, stops = count_words("這是我們的國家", ZH)
    assert stops >= 4  # 這 是 我們 的
    assert words == stops + 1  # 國家


@pytest.mark.parametrize(
    ("text", "stops"),
    [
        ("我们的城市在过去十年里发生了很大的变化，许多人从农村搬到这里工作和生活。", ZH),
        (
            "私たちの町はこの十年で大きく変わり、多くの人が地方からここに移り住んで働いています。",
            JA,
        ),
        (
            "เมืองของเรามีการเปลี่ยนแปลงอย่างมากในช่วงสิบปีที่ผ่านมา และมีผู้คนจำนวนมากย้ายมาทำงานที่นี่",
            TH,
        ),
    ],
)
def test_prose_reaches_european_stopword_densities(text: str, stops: frozenset[str]) -> None:
    words, stopwords = count_words(text, stops)
    assert words >= 10
    # jusText calls a block good from 0.32 (stopwords_high); European prose is at 0.4-0.5.
    assert 0.32 <= stopwords / words <= 0.8


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, st.sampled_from([None, EN, ZH, JA, TH, stoplist("my")]))
def test_never_raises_and_stopwords_bounded(text: str, stops: frozenset[str] | None) -> None:
    words, stopwords = count_words(text, stops)
    assert 0 <= stopwords <= words
    if not text.strip():
        assert words == 0
    if stops is None:
        assert stopwords == 0
