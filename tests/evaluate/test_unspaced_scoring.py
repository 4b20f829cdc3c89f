"""Thai and Burmese are scored by characters, like Chinese and Japanese.

Neither script puts spaces between words, and ``\\w+`` cuts their text at every combining vowel
or tone mark, into fragments that are neither words nor characters. Each case is built so that
scoring by ``\\w+`` gives another F1 than scoring by characters, and asserts the character F1,
worked out by hand: so taking either language out of the character-scored set fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.evaluate import datasets as ds
from pipeline.evaluate import scoring as ev
from pipeline.evaluate.metrics import CHARACTER_SCORED_LANGUAGES, text_f1, tokens_for

# Reference: two phrases on two lines. Output: the first phrase without its last character.
# Counting characters (spaces and line breaks do not count), all n_out output characters are in
# the reference: P = 1, R = n_out / n_ref.
CASES = {
    # "the river flows through the valley" / "the village is by the river"
    "th": ("แม่น้ำไหลผ่านหุบเขา", "หมู่บ้านอยู่ริมแม่น้ำ"),
    # "the river flows" / "the village is near"
    "my": ("မြစ်စီးဆင်းသည်", "ရွာနီးသည်"),
}


def _page(main: str, language: str) -> ds.Page:
    return ds.Page("p", Path("unused"), language, main, (), ())


@pytest.mark.parametrize("language", sorted(CASES))
def test_scored_by_characters(language: str) -> None:
    assert language in CHARACTER_SCORED_LANGUAGES
    first, second = CASES[language]
    reference = f"{first}\n{second}"
    output = first[:-1]
    n_ref = len(first) + len(second)
    n_out = len(first) - 1
    recall = n_out / n_ref
    want = 2 * recall / (1 + recall)
    row = ev.score_text(_page(reference, language), output)
    assert row.metric == "char"
    assert row.precision == pytest.approx(1.0)
    assert row.recall == pytest.approx(recall)
    assert row.f1 == pytest.approx(want)
    assert text_f1(output, reference, language).f1 == pytest.approx(want)
    # The same output scored by \\w+ tokens, as a spaced language is: another number.
    assert text_f1(output, reference, "en").f1 != pytest.approx(want, abs=0.02)


@pytest.mark.parametrize("language", sorted(CASES))
def test_tokens_are_characters_without_spaces(language: str) -> None:
    first, second = CASES[language]
    text = f"{first} {second}"
    assert tokens_for(text, language) == [c for c in text if not c.isspace()]


@pytest.mark.parametrize("language", sorted(CASES))
def test_empty_output_is_empty_by_characters(language: str) -> None:
    first, _ = CASES[language]
    row = ev.score_text(_page(first, language), " \n ")
    assert row.empty and row.f1 == 0.0
    assert not ev.score_text(_page(first, language), first[:1]).empty
