"""A forum post's signature is dropped on forum threads, and only there."""

from __future__ import annotations

import pytest

from pipeline.clean import clean_html
from pipeline.html.metadata import read_head
from pipeline.html.segment import parse, segment
from pipeline.rules import signatures
from pipeline.types import LabeledBlock, Verdict

TITLE = "Which filter for a small aquarium?"
POSTS = (
    "I have a thirty litre tank with a few guppies and some plants, and the little internal "
    "filter that came with it makes a lot of noise at night. Would a sponge filter be enough for "
    "a tank this size, or do I need something stronger for the plants?",
    "A sponge filter is plenty for thirty litres with guppies. Run it from a small air pump with "
    "a check valve, rinse the sponge in old tank water once a month, and never under the tap, or "
    "you wash away the bacteria that keep the water clean.",
    "I agree with the sponge filter. I moved my shrimp tank to one two years ago and the water has "
    "been stable since. The plants do not mind the gentle flow at all, mine grow faster now.",
)
SIGNATURES = (
    "Keeping fish since 1998. 3 tanks, 2 cats, 1 very patient wife.",
    "If my answer helped you, please consider buying me a coffee, it keeps me going.",
    "Moderator of the planted tank section. Read the forum rules before posting.",
)
THREAD_URL = "https://forum.example.org/viewtopic.php?t=4242"


def thread(signature_class: str = "signature", head: str = "") -> str:
    posts = "".join(
        f'<div class="post" id="p{i}"><div class="postbody"><p class="author">by user{i}</p>'
        f'<div class="content"><p>{post}</p></div>'
        f'<div class="{signature_class}"><p>{sig}</p></div></div></div>'
        for i, (post, sig) in enumerate(zip(POSTS, SIGNATURES, strict=True), 1)
    )
    return (
        f"<html><head><title>{TITLE}</title>{head}</head><body>"
        f'<div id="page-body"><h2>{TITLE}</h2>{posts}</div></body></html>'
    )


def kept_all(html: str) -> list[LabeledBlock]:
    """Every block of ``html`` labelled good: the rule alone, whatever the model says."""
    return [LabeledBlock(b, Verdict.GOOD) for b in segment(parse(html.encode()))]


def dropped_texts(html: str, url: str | None) -> list[str]:
    tree = parse(html.encode())
    labeled = kept_all(html)
    out, notes = signatures.drop(labeled, tree, url, read_head(tree, url))
    dropped = [lb.block.text for lb in out if lb.verdict is Verdict.BAD]
    assert (notes == (signatures.SIGNATURES_DROPPED,)) == bool(dropped)
    return dropped


@pytest.mark.parametrize("name", sorted(signatures.SIGNATURE_CLASSES))
def test_every_kind_of_signature_is_found_on_a_thread(name: str) -> None:
    assert sorted(dropped_texts(thread(f"x {name}"), THREAD_URL)) == sorted(SIGNATURES)


def test_invision_marks_its_signatures_by_a_data_role():
    html = thread("sig-wrap").replace('class="sig-wrap"', 'data-role="memberSignature"')
    assert sorted(dropped_texts(html, THREAD_URL)) == sorted(SIGNATURES)


def test_signature_names_are_whole_class_words():
    for name in ("signature-pad", "nosignature", "ipsSignatureBox"):
        assert dropped_texts(thread(name), THREAD_URL) == [], name


def test_a_thread_is_known_by_its_canonical_address_or_its_head():
    canonical = f'<link rel="canonical" href="{THREAD_URL}">'
    assert sorted(dropped_texts(thread(head=canonical), None)) == sorted(SIGNATURES)
    declared = '<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script>'
    assert sorted(dropped_texts(thread(head=declared), None)) == sorted(SIGNATURES)


def test_off_a_forum_a_signature_class_is_left_alone():
    # e.g. an API's function signature, an article on e-mail signatures
    assert dropped_texts(thread(), "https://example.org/2024/05/aquarium-filters/") == []
    assert dropped_texts(thread(), None) == []


def test_a_page_of_signatures_alone_keeps_them():
    html = (
        f"<html><head><title>{TITLE}</title></head><body>"
        f'<div class="signature"><p>{SIGNATURES[0]}</p></div></body></html>'
    )
    assert dropped_texts(html, THREAD_URL) == []


def test_the_default_cleaner_drops_kept_signatures_and_notes_it():
    without_rule = clean_html(thread(), url=THREAD_URL, signatures=False)
    # the model keeps them (else this page tests nothing)
    assert any(sig in without_rule.text for sig in SIGNATURES)
    assert signatures.SIGNATURES_DROPPED not in without_rule.notes
    result = clean_html(thread(), url=THREAD_URL)
    for post in POSTS:
        assert post in result.text
    for sig in SIGNATURES:
        assert sig not in result.text and sig not in result.markdown
    assert signatures.SIGNATURES_DROPPED in result.notes
    # the seed cleaners do not ask for the rule
    assert (
        signatures.SIGNATURES_DROPPED
        not in clean_html(thread(), url=THREAD_URL, cleaner="bte").notes
    )


def test_the_option_is_a_cleaner_parameter():
    from pipeline.cleaners.registry import make_cleaner

    assert make_cleaner("neighbours", signatures=False).params()["signatures"] is False
    assert "signatures" not in make_cleaner("neighbours").params()
    with pytest.raises(ValueError, match="signatures must be true or false"):
        make_cleaner("neighbours", signatures="no")
