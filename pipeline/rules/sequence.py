"""The page rules in the order they correct the learned model's answer on a page.

Each rule is a module of this package and says why it exists; this one says in which order they
run and why that order (`guarded`). The model itself is `pipeline.learned`; what is decided
across the pages of a site is `pipeline.site`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pipeline.html.metadata import HeadFacts
from pipeline.rules import (
    asset_urls,
    closed_dialogs,
    code_rescue,
    consent_guard,
    description_lead,
    facet_filters,
    lead_rescue,
    link_lists,
    list_rescue,
    markup_guard,
    script_notice,
    support_appeal,
    teaser_lists,
    title_heading,
)
from pipeline.rules.link_guard import guard
from pipeline.rules.short_kept import lowered, short_kept
from pipeline.types import Block, block_column, block_fields


def guarded(
    keep: np.ndarray,
    probs: np.ndarray,
    blocks: Sequence[Block],
    stoplist: frozenset[str] | None,
    language: str | None,
    link_guard: bool = True,
    lead: bool = True,
    lists: bool = True,
    teasers: bool = True,
    tree: Any = None,
    consent: bool = True,
    code: bool = True,
    head: HeadFacts | None = None,
    title: bool = True,
    list_items: bool = True,
    fields: Sequence[Sequence] | None = None,
    dialogs: bool = True,
    description: bool = True,
    facets: bool = True,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """The model's answer ``keep`` after the page guards, and their page notes: the markup guard
    (`pipeline.rules.markup_guard`), the media files' addresses (`pipeline.rules.asset_urls`),
    the JavaScript notices (`pipeline.rules.script_notice`),
    the appeals for support (`pipeline.rules.support_appeal`), the consent-dialog guard on the
    parsed page ``tree`` (`pipeline.rules.consent_guard`; none without a tree), the closed
    dialogs (`pipeline.rules.closed_dialogs`, likewise), the filter panels
    (`pipeline.rules.facet_filters`, likewise), the link guard
    (`pipeline.rules.link_guard`), the link-list items dropped (`pipeline.rules.link_lists`),
    the teaser-list items dropped (`pipeline.rules.teaser_lists`), the standfirst above the
    body (`pipeline.rules.lead_rescue`), the code blocks between kept content
    (`pipeline.rules.code_rescue`), a kept list's dropped items and label line
    (`pipeline.rules.list_rescue`), then the page's title heading
    (`pipeline.rules.title_heading`, from what its ``head`` says; none without it) and the lead
    its description quotes (`pipeline.rules.description_lead`, likewise).
    ``link_guard=False``, ``lists=False``, ``teasers=False``, ``consent=False``,
    ``dialogs=False``, ``facets=False``, ``lead=False``, ``code=False``, ``list_items=False``,
    ``title=False`` and ``description=False`` leave out those steps (the cleaner's options; a
    benchmark's comparison). ``fields``: the blocks' `block_fields`, when at hand: the rules that
    look at one field of every block read its column there."""
    if fields is None:
        fields = block_fields(blocks)
    # Markup first: its long link-free blocks would dilute the link guard's link share.
    keep, notes = markup_guard.guard(keep, blocks, fields)
    # Nor is a media file's address printed as text (a shop's hidden fields, a player's source).
    keep, dropped = asset_urls.guard(keep, blocks, fields)
    notes += dropped
    # A notice asking for JavaScript is never content either, in any language; nor is an appeal
    # for the site's funding.
    keep, dropped = notices_and_appeals(keep, blocks, language, fields)
    notes += dropped
    if consent:
        # So is a consent dialog's prose, which is never content in any language.
        keep, dropped = consent_guard.guard(keep, blocks, tree, fields)
        notes += dropped
    if dialogs:
        # And a dialog the page holds closed, which no reader sees until they click.
        keep, dropped = closed_dialogs.guard(keep, blocks, tree, fields)
        notes += dropped
    if facets:
        # And a panel of filters beside the results: the page's controls, not its content.
        keep, dropped = facet_filters.guard(keep, blocks, tree, fields)
        notes += dropped
    if link_guard:
        keep, linked = guard(keep, probs, blocks, stoplist, language)
        notes += linked
    if lists:
        # After the link guard: on a page it narrowed to what the rules agree on, the lists the
        # rules kept go too.
        keep, listed = link_lists.guard(keep, blocks, language)
        notes += listed
    if teasers:
        # The summaries and dates between a teaser list's links, which the link-list step does
        # not see: they break its runs of link blocks.
        keep, teased = teaser_lists.guard(keep, blocks, language)
        notes += teased
    if lead:
        # Last, so that the body it looks above is the one the guards left.
        keep, rescued = lead_rescue.rescue(keep, probs, blocks)
        notes += rescued
    if code:
        # After every step that drops blocks: "between kept content" means what stays kept.
        keep, coded = code_rescue.rescue(keep, probs, blocks)
        notes += coded
    if list_items:
        # After every step that drops blocks, as the code rescue: a list is "kept" as the guards
        # left it (a link list they dropped gets no items back).
        keep, listed = list_rescue.rescue(keep, blocks, language, fields)
        notes += listed
    if title and head is not None:
        # After every step that drops blocks: the heading names the text that is left.
        meta = head.metadata
        keep, titled = title_heading.keep_title(
            keep, blocks, head.titles, (meta.site_name,), meta.canonical_url, fields
        )
        notes += titled
    if description and head is not None:
        # Beside the title, the lead the head's description quotes, where the text is.
        keep, described = description_lead.keep_description(keep, blocks, head, language, fields)
        notes += described
    return keep, notes


def notices_and_appeals(
    keep: np.ndarray,
    blocks: Sequence[Block],
    language: str | None,
    fields: Sequence[Sequence] | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept JavaScript notices (`pipeline.rules.script_notice`) and appeals
    for support (`pipeline.rules.support_appeal`), and their page notes: both guards read the
    page's short kept blocks and their lowered text, made once (a notice the first drops stays
    in the list: the second only ever drops more). ``fields``: the blocks' `block_fields`, when at
    hand."""
    texts = block_column(blocks, "text", fields)
    short = short_kept(keep, texts, max(script_notice.MAX_CHARS, support_appeal.MAX_CHARS))
    data = lowered(short)
    keep, noticed = script_notice.drop_notices(keep, short, data)
    keep, appealed = support_appeal.drop_appeals(keep, short, language, data)
    return keep, noticed + appealed
