"""Media addresses: a kept block whose text is only an image's, a video's or a sound's address (a
shop system's custom fields, a player's source written out) is dropped with its label, and an
address a page shows on purpose stays."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.rules import asset_urls
from pipeline.types import Block, Verdict

WCXB = Path(__file__).resolve().parents[3] / "shared" / "data" / "wcxb-dev"

THUMB = "https://cdn11.example.com/s-hs95/images/stencil/160x160/5001/5001_STAPLE_TEE_BONE.jpg"
PROSE = (
    "The staple tee, in a regular fit, is made of mid-weight combed cotton with neck ribbing, "
    "side seams and double needle hems."
)


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def blocks_of(html: str) -> list[Block]:
    return segment(parse(html.encode()))


@pytest.mark.parametrize(
    "text",
    [
        THUMB,
        "https://main--petplace--example.page/videos/hannah-and-daisy.mp4",
        "//cdn.example.com/a/b/photo.WEBP?v=3&w=640",
        "http://example.com/sound/bell.mp3#t=3",
        f"cat_thumb_Bone: {THUMB}",
        f"Image:{THUMB}",
        f"  {THUMB}\n",
    ],
)
def test_media_addresses_alone_or_labelled(text: str) -> None:
    assert asset_urls.is_media_address(text)


@pytest.mark.parametrize(
    "text",
    [
        "Website: https://www.nccih.nih.gov",
        "https://github.com/mintty/wsltty/releases",
        "https://example.com/annual-report-2024.pdf",
        "https://cdn.example.com/lib/1.2/lib.min.js",
        "https://example.com/data.json",
        f"See {THUMB}",  # a label must end in ":"
        f"{THUMB} is the thumbnail",
        f"{'A label that goes on far too long to be a field name ' * 2}: {THUMB}",
        "https://example.com/photos/",
        "https://example.com/jpg",
        "http://[::1/a.png",
        "photo.jpg",
        "",
    ],
)
def test_what_is_not_a_media_address(text: str) -> None:
    assert not asset_urls.is_media_address(text)


def test_the_label_limit_is_the_constant() -> None:
    label = "k" * (asset_urls.MAX_LABEL_CHARS - 1) + ":"
    assert asset_urls.is_media_address(f"{label} {THUMB}")
    assert not asset_urls.is_media_address(f"k{label} {THUMB}")


FIELDS = (
    f"<p>{PROSE}</p><dl class='productView-info'>"
    f"<dt>short_description:</dt><dd>Regular Fit - 5.3 oz</dd>"
    f"<dt>cat_thumb_Bone:</dt><dd>{THUMB}</dd>"
    f"<dt>cat_thumb_Navy:</dt><dd>{THUMB.replace('BONE', 'NAVY')}</dd></dl>"
)


def test_guard_drops_the_addresses_and_their_labels_only() -> None:
    blocks = blocks_of(page(FIELDS))
    texts = [b.text for b in blocks]
    assert texts[0] == PROSE and len(texts) == 7
    out, notes = asset_urls.guard(np.ones(len(blocks), bool), blocks)
    assert [t for t, k in zip(texts, out, strict=True) if k] == [
        PROSE,
        "short_description:",
        "Regular Fit - 5.3 oz",
    ]
    assert notes == (asset_urls.ASSET_URLS_DROPPED,)


def test_a_label_the_model_dropped_or_an_address_it_dropped_is_left() -> None:
    blocks = blocks_of(page(FIELDS))
    keep = np.ones(len(blocks), bool)
    keep[[4, 5]] = False  # the first address and the second label
    out, notes = asset_urls.guard(keep, blocks)
    # The first label stays: no address is dropped after it; the second address goes alone.
    assert out.tolist() == [True, True, True, True, False, False, False]
    assert notes == (asset_urls.ASSET_URLS_DROPPED,)
    keep = np.zeros(len(blocks), bool)
    keep[0] = True
    out, notes = asset_urls.guard(keep, blocks)
    assert out is keep and notes == ()


def test_an_address_in_a_code_listing_stays() -> None:
    blocks = blocks_of(page(f"<p>{PROSE}</p><pre>{THUMB}</pre>"))
    assert [b.text for b in blocks] == [PROSE, THUMB]
    out, notes = asset_urls.guard(np.ones(2, bool), blocks)
    assert out.tolist() == [True, True] and notes == ()


PARTS = [PROSE, THUMB, "cat_thumb_Bone:", "Website: https://example.org/", "Colour:", "Navy"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PARTS), max_size=10), st.data())
def test_guard_only_drops_addresses_and_the_labels_before_them(
    parts: list[str], data: st.DataObject
) -> None:
    blocks = blocks_of(page("".join(f"<div>{p}</div>" for p in parts)))
    n = len(blocks)
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    out, notes = asset_urls.guard(keep, blocks)
    assert not (out & ~keep).any()
    dropped = np.flatnonzero(keep & ~out).tolist()
    for i in dropped:
        text = blocks[i].text
        if not asset_urls.is_media_address(text):
            # A label, just before a dropped address.
            assert text.endswith(":") and i + 1 in dropped
            assert asset_urls.is_media_address(blocks[i + 1].text)
    # Every kept address goes.
    assert not any(asset_urls.is_media_address(blocks[i].text) for i in np.flatnonzero(out))
    assert bool(notes) == bool(dropped)


def test_a_block_longer_than_the_bound_is_not_read_as_an_address() -> None:
    def address(chars: int) -> str:
        head = "https://example.com/"
        return head + "a" * (chars - len(head) - len(".jpg")) + ".jpg"

    assert asset_urls.is_media_address(address(asset_urls.MAX_CHARS))
    assert not asset_urls.is_media_address(address(asset_urls.MAX_CHARS + 1))
    assert not asset_urls.is_media_address("a:" + "//x" * 100_000 + ".jpg")


def test_the_default_cleaner_drops_kept_addresses_and_records_it(keep_long: str) -> None:
    result = clean_html(page(FIELDS), language="en", model=keep_long)
    kept = [lb.block.text for lb in result.blocks if lb.verdict is Verdict.GOOD]
    assert PROSE in kept
    assert not any("cdn11" in text or text.startswith("cat_thumb") for text in kept)
    assert asset_urls.ASSET_URLS_DROPPED in result.notes
    assert "cdn11" not in result.text and "cdn11" not in (result.markdown or "")


@pytest.mark.skipif(not WCXB.is_dir(), reason="needs ../shared/data/wcxb-dev")
def test_the_shop_systems_fields_of_wcxb_0604_go_and_the_product_text_stays() -> None:
    raw = gzip.decompress((WCXB / "html" / "0604.html.gz").read_bytes())
    truth = json.loads((WCXB / "ground-truth" / "0604.json").read_text("utf-8"))
    result = clean_html(raw, url=truth["url"])
    for snippet in truth["ground_truth"]["with"]:
        assert snippet in result.text
    assert "cat_thumb_" not in result.text and "WEB_THUMBNAILS" not in result.text
    assert asset_urls.ASSET_URLS_DROPPED in result.notes


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab:/.?#[]@% \n\tjpgJPG0é\x00"), max_size=60),
    st.sampled_from(["", "http://", "https://", "//", "x: https://"]),
)
def test_any_text_gets_an_answer_and_a_yes_is_one_media_address(tail: str, head: str) -> None:
    text = head + tail
    if asset_urls.is_media_address(text):
        address = text.strip().split()[-1]
        assert "//" in address
        # From its "//" on, an address parses the same with or without its scheme.
        path = urlsplit(address[address.find("//") :]).path
        suffix = path.rpartition("/")[2].rpartition(".")[2]
        assert suffix.lower() in asset_urls.MEDIA_SUFFIXES
