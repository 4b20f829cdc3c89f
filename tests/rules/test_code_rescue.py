"""The code rescue: a code block the model dropped between kept content is kept, and nothing
else is (code in a menu or footer, code far from kept text, copies of kept code, prose)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.html.segment import parse, segment
from pipeline.rules import code_rescue
from pipeline.rules.repeats import REPEAT_MIN_CHARS
from pipeline.rules.sequence import guarded
from pipeline.types import Block

INTRO = "For example, given an app common/models.py, the models are declared like this:"
AFTER = "Along with another app, the reverse name of the field will be different for each."
CODE = "cargo install create-tauri-app --locked"


def blocks_of(body: str) -> list[Block]:
    return segment(parse(f"<html><body>{body}</body></html>".encode()), record_runs=True)


def answer(blocks: list[Block], code_prob: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """The model's answer as the rescue sees it: the prose kept at 0.9, every code block at
    ``code_prob`` and dropped, everything else dropped at 0.05."""
    keep = np.array([b.text in (INTRO, AFTER) for b in blocks])
    probs = np.where(keep, 0.9, 0.05)
    probs[[i for i, b in enumerate(blocks) if code_rescue.is_code(b)]] = code_prob
    return keep, probs


def rescued(body: str, code_prob: float = 0.3) -> list[str]:
    blocks = blocks_of(body)
    keep, probs = answer(blocks, code_prob)
    out, notes = code_rescue.rescue(keep, probs, blocks)
    added = [b.text for b, k, was in zip(blocks, out, keep, strict=True) if k and not was]
    assert (notes == (code_rescue.CODE_KEPT,)) == bool(added)
    return added


def test_a_pre_between_kept_paragraphs_is_kept() -> None:
    assert rescued(f"<p>{INTRO}</p><pre>{CODE}</pre><p>{AFTER}</p>") == [CODE]


def test_a_block_of_inline_code_alone_is_code_too() -> None:
    assert rescued(f"<p>{INTRO}</p><p><code>{CODE}</code></p><p>{AFTER}</p>") == [CODE]
    # Inline code inside a sentence is not a code block, nor is a sentence that starts with it.
    for sentence in (f"Run <code>{CODE}</code> first.", f"<code>{CODE}</code> installs it."):
        blocks = blocks_of(f"<p>{sentence}</p>")
        assert not code_rescue.is_code(blocks[0]), sentence
    # Nor is a block whose markup recorded nothing.
    (plain,) = blocks_of(f"<div>{CODE}</div>")
    assert plain.shape is None and code_rescue.is_code(plain) is False


def test_the_last_snippet_is_kept_when_the_text_above_announces_it() -> None:
    announce = INTRO  # ends with a colon
    footer = "<div><a href='/prev'>Previous</a> <a href='/next'>Next</a></div>"
    assert rescued(f"<p>{announce}</p><pre>{CODE}</pre>{footer}") == [CODE]
    # Without the colon nothing says the snippet belongs to the text above.
    plain = INTRO.rstrip(":") + "."
    blocks = blocks_of(f"<p>{plain}</p><pre>{CODE}</pre>{footer}")
    keep = np.array([b.text == plain for b in blocks])
    probs = np.where(keep, 0.9, 0.3)
    assert code_rescue.rescue(keep, probs, blocks)[1] == ()


def test_a_label_between_the_text_and_the_code_is_within_reach() -> None:
    html = f"<p>{INTRO}</p><div>bash</div><pre>{CODE}</pre><div>Copy</div><p>{AFTER}</p>"
    assert rescued(html) == [CODE]


def test_code_too_far_from_kept_text_is_not_kept() -> None:
    # One block between the text and the code (a label) is within reach; two or three are not.
    for n in (2, 3):
        far = "".join(f"<div>label {i}</div>" for i in range(n))
        assert rescued(f"<p>{INTRO}</p>{far}<pre>{CODE}</pre><p>{AFTER}</p>") == []
    near = "<div>label 0</div>"
    assert rescued(f"<p>{INTRO}</p>{near}<pre>{CODE}</pre><p>{AFTER}</p>") == [CODE]
    assert rescued(f"<pre>{CODE}</pre><p>{AFTER}</p>") == []


@pytest.mark.parametrize("chrome", ["main-nav", "site-footer", "breadcrumbs", "cookie-banner"])
def test_code_in_chrome_is_not_kept(chrome: str) -> None:
    html = f"<p>{INTRO}</p><div class='{chrome}'><pre>{CODE}</pre></div><p>{AFTER}</p>"
    assert rescued(html) == []


@pytest.mark.parametrize("tag", ["nav", "aside", "footer"])
def test_code_in_a_chrome_element_is_not_kept(tag: str) -> None:
    html = f"<p>{INTRO}</p><{tag}><p><code>{CODE}</code></p></{tag}><p>{AFTER}</p>"
    assert rescued(html) == []


def test_a_section_id_made_of_heading_words_is_no_chrome() -> None:
    html = (
        f"<div id='be-careful-with-related-name'><p>{INTRO}</p><pre>{CODE}</pre>"
        f"<p>{AFTER}</p></div>"
    )
    assert rescued(html) == [CODE]


def test_code_the_model_is_sure_against_is_not_kept() -> None:
    html = f"<p>{INTRO}</p><pre>{CODE}</pre><p>{AFTER}</p>"
    assert rescued(html, code_prob=code_rescue.MIN_PROB / 2) == []
    # "Sure" is below the bound; at it the rescue still applies.
    assert rescued(html, code_prob=code_rescue.MIN_PROB) == [CODE]


def test_a_copy_of_kept_code_is_not_kept() -> None:
    # The same snippet in two tabs: the page rule dropped the second copy on purpose.
    blocks = blocks_of(f"<p>{INTRO}</p><pre>{CODE}</pre><pre>{CODE}</pre><p>{AFTER}</p>")
    keep = np.array(
        [b.text in (INTRO, AFTER) or (b.shape is not None and b.shape.pre == 1) for b in blocks]
    )
    probs = np.full(len(blocks), 0.6)
    out, notes = code_rescue.rescue(keep, probs, blocks)
    assert out.tolist() == keep.tolist() and notes == ()


def _second_copy_rescued(first: str, second: str) -> bool:
    """Whether the rescue keeps the second of two snippets, the first kept, the second not."""
    blocks = blocks_of(f"<p>{INTRO}</p><pre>{first}</pre><pre>{second}</pre><p>{AFTER}</p>")
    pres = [b.shape.pre if b.shape is not None else 0 for b in blocks]
    assert pres == [0, 1, 2, 0]
    keep = np.array([pre in (0, 1) for pre in pres])
    out, _ = code_rescue.rescue(keep, np.full(len(blocks), 0.6), blocks)
    return bool(out[2])


def test_copies_are_told_as_the_page_rule_tells_them() -> None:
    # The page's repeat rule (`pipeline.rules.repeats`) drops a later copy compared lower-cased,
    # from REPEAT_MIN_CHARS characters on: the rescue leaves exactly those copies dropped.
    assert not _second_copy_rescued("select name from users;", "SELECT name FROM users;")
    at_bound = "x" * (REPEAT_MIN_CHARS - 4) + " = 1"
    assert len(at_bound) == REPEAT_MIN_CHARS
    assert not _second_copy_rescued(at_bound, at_bound)
    shorter = at_bound[1:]
    assert _second_copy_rescued(shorter, shorter)


def test_prose_between_kept_paragraphs_is_left_to_the_model() -> None:
    html = f"<p>{INTRO}</p><p>Some doubtful sentence the model dropped.</p><p>{AFTER}</p>"
    assert rescued(html) == []


def test_guarded_runs_it_last_and_can_leave_it_out() -> None:
    blocks = blocks_of(f"<p>{INTRO}</p><pre>{CODE}</pre><p>{AFTER}</p>")
    keep, probs = answer(blocks)
    on, notes = guarded(keep, probs, blocks, None, "en")
    off, _ = guarded(keep, probs, blocks, None, "en", code=False)
    assert code_rescue.CODE_KEPT in notes
    assert on.sum() == off.sum() + 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["p", "pre", "code", "label"]), max_size=12),
    st.lists(st.booleans(), max_size=12),
    st.lists(st.floats(0, 1), max_size=12),
)
def test_it_only_ever_adds_code_blocks(kinds: list[str], kept: list[bool], ps: list[float]) -> None:
    parts = {
        "p": "<p>A sentence of prose number {i} for the page.</p>",
        "pre": "<pre>run --step {i}</pre>",
        "code": "<p><code>make target{i}</code></p>",
        "label": "<div>tab {i}</div>",
    }
    blocks = blocks_of("".join(parts[k].format(i=i) for i, k in enumerate(kinds)))
    n = len(blocks)
    keep = np.array([kept[i] if i < len(kept) else False for i in range(n)], dtype=bool)
    probs = np.array([ps[i] if i < len(ps) else 0.5 for i in range(n)])
    out, notes = code_rescue.rescue(keep, probs, blocks)
    assert (out >= keep).all()
    added = np.flatnonzero(out & ~keep).tolist()
    assert all(code_rescue.is_code(blocks[i]) for i in added)
    assert all(probs[i] >= code_rescue.MIN_PROB for i in added)
    assert (notes != ()) == bool(added)
