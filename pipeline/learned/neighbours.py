"""The `neighbours` cleaner: the learned block classifier (`pipeline.learned.model`) over the
block features (`pipeline.learned.features`), run in numpy and compiled loops."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from pipeline.cleaners.registry import model_params
from pipeline.html.metadata import HeadFacts
from pipeline.learned.decision import decide
from pipeline.learned.features import page_features
from pipeline.learned.model import DEFAULT_MODEL, FAST_MODEL, NeighboursModel, load_model
from pipeline.rules.link_guard import TRUSTED_LANGUAGES
from pipeline.rules.sequence import guarded
from pipeline.types import Block, LabeledBlock, Verdict, block_fields

# Outside English the model is surer than it should be: refitted without a page's language or
# source dataset, kept blocks of middling probability on a multilingual page are more often
# boilerplate than their probability says, so there the page rule decides on the probabilities
# raised to this power (BENCHMARKS.md, "The stricter rule outside English, guards on the model's
# probabilities"). Most training pages are English (`TRUSTED_LANGUAGES`): there the rule is left
# as fitted.
OUTSIDE_ENGLISH_POWER = 2.0


def page_rule(
    model: NeighboursModel,
    probs: np.ndarray,
    blocks: Sequence[Block],
    language: str | None,
    power: float = OUTSIDE_ENGLISH_POWER,
    fields: Sequence[Sequence] | None = None,
) -> np.ndarray:
    """The model's decision for the page (`NeighboursModel.decide`), on ``probs`` raised to
    ``power`` unless the page's ``language`` is trusted (None, an undetected language, is not);
    ``fields``: the blocks' `pipeline.types.block_fields`, when at hand."""
    if power != 1.0 and language not in TRUSTED_LANGUAGES:
        probs = probs**power
    return model.decide(probs, blocks, fields)


class NeighboursCleaner:
    """Labels blocks with the learned model; ``threshold`` replaces the model's decision rule
    (one fixed threshold for every page, no fallback or guard; repeats are still dropped),
    ``model`` names another model file, ``link_guard=False`` turns off
    `pipeline.rules.link_guard` under the model's own rule, ``lead_rescue=False``
    `pipeline.rules.lead_rescue` (for a corpus whose notion of content leaves out standfirsts),
    ``link_lists=False`` `pipeline.rules.link_lists` (for a corpus that counts lists of links
    as content, as WCXB's references do), ``teaser_lists=False``
    `pipeline.rules.teaser_lists` (likewise for lists of teasers), ``consent_guard=False``
    `pipeline.rules.consent_guard` (cookie-consent dialogs kept as the model says),
    ``closed_dialogs=False`` `pipeline.rules.closed_dialogs` (dialogs the page holds closed kept
    as the model says), ``facet_filters=False`` `pipeline.rules.facet_filters` (a filter panel's
    choices kept as the model says),
    ``code_rescue=False`` `pipeline.rules.code_rescue` (code between kept content left as the
    model says), ``list_rescue=False`` `pipeline.rules.list_rescue` (a list's items and label
    line left as the model says), ``title_heading=False`` `pipeline.rules.title_heading` (for a
    corpus whose texts leave the page's title out, as WCXB's references mostly do),
    ``description_lead=False`` `pipeline.rules.description_lead` (the block the head's description
    quotes left as the model says),
    ``fragments=False`` `pipeline.rules.fragments` (a page whose kept text is a few short
    fragments keeps them), ``signatures=False`` `pipeline.rules.signatures` (a forum post's
    signature kept as the model says), ``recommendations=False``
    `pipeline.rules.recommendations` (a product page's carousels of other products kept as the
    model says), ``strictness`` sets the power the probabilities of a page outside English are
    raised to before the model's rule decides (`page_rule`; 1: as the model says them; higher:
    stricter).
    Under that rule, blocks of markup written out as text (`pipeline.rules.markup_guard`),
    media files' addresses (`pipeline.rules.asset_urls`), notices asking for JavaScript
    (`pipeline.rules.script_notice`) and appeals for the site's funding
    (`pipeline.rules.support_appeal`) are never kept."""

    name: ClassVar[str] = "neighbours"
    needs_runs: ClassVar[bool] = True
    needs_page_cues: ClassVar[bool] = True
    needs_language: ClassVar[bool] = True
    # The consent guard reads the parsed page (`pipeline.rules.consent_guard`).
    needs_tree: ClassVar[bool] = True
    # The title heading is matched to the titles the head gives (`pipeline.rules.title_heading`).
    needs_head: ClassVar[bool] = True
    default_model: ClassVar[Path] = DEFAULT_MODEL

    def __init__(
        self,
        threshold: float | None = None,
        model: str | None = None,
        link_guard: bool = True,
        lead_rescue: bool = True,
        link_lists: bool = True,
        teaser_lists: bool = True,
        strictness: float = OUTSIDE_ENGLISH_POWER,
        consent_guard: bool = True,
        code_rescue: bool = True,
        title_heading: bool = True,
        list_rescue: bool = True,
        fragments: bool = True,
        signatures: bool = True,
        recommendations: bool = True,
        closed_dialogs: bool = True,
        description_lead: bool = True,
        facet_filters: bool = True,
    ) -> None:
        options = (("link_guard", link_guard), ("lead_rescue", lead_rescue))
        options += (("link_lists", link_lists), ("teaser_lists", teaser_lists))
        options += (("consent_guard", consent_guard), ("code_rescue", code_rescue))
        options += (("title_heading", title_heading), ("list_rescue", list_rescue))
        options += (("fragments", fragments), ("signatures", signatures))
        options += (("recommendations", recommendations), ("closed_dialogs", closed_dialogs))
        options += (("description_lead", description_lead), ("facet_filters", facet_filters))
        for name, value in options:
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be true or false, got {value!r}")
        if isinstance(strictness, bool) or not isinstance(strictness, int | float):
            raise ValueError(f"strictness must be a number, got {strictness!r}")
        if not 1.0 <= strictness <= 10.0:
            raise ValueError(f"strictness must be in [1, 10], got {strictness}")
        self.link_guard = link_guard
        self.lead_rescue = lead_rescue
        self.link_lists = link_lists
        self.teaser_lists = teaser_lists
        self.consent_guard = consent_guard
        self.closed_dialogs = closed_dialogs
        self.facet_filters = facet_filters
        self.code_rescue = code_rescue
        self.title_heading = title_heading
        self.description_lead = description_lead
        self.list_rescue = list_rescue
        # Applied by `pipeline.clean` once tables are decided whole (`pipeline.rules.fragments`).
        self.drops_fragments = fragments
        # Applied by `pipeline.clean` after the comment labels (`pipeline.rules.signatures`).
        self.drops_signatures = signatures
        # Applied by `pipeline.clean` after the comment labels (`pipeline.rules.recommendations`).
        self.drops_recommendations = recommendations
        self.strictness = float(strictness)
        self._model_path = str(model) if model is not None else None
        self.model = load_model(self._model_path or self.default_model)
        if threshold is not None:
            threshold = float(threshold)
            if not 0.0 <= threshold <= 1.0:
                raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        self.threshold = threshold

    def params(self) -> dict[str, Any]:
        out = model_params(self.threshold, self._model_path)
        if not self.link_guard:
            out["link_guard"] = False
        if not self.lead_rescue:
            out["lead_rescue"] = False
        if not self.link_lists:
            out["link_lists"] = False
        if not self.teaser_lists:
            out["teaser_lists"] = False
        if not self.consent_guard:
            out["consent_guard"] = False
        if not self.closed_dialogs:
            out["closed_dialogs"] = False
        if not self.facet_filters:
            out["facet_filters"] = False
        if not self.code_rescue:
            out["code_rescue"] = False
        if not self.title_heading:
            out["title_heading"] = False
        if not self.list_rescue:
            out["list_rescue"] = False
        if not self.description_lead:
            out["description_lead"] = False
        if not self.drops_fragments:
            out["fragments"] = False
        if not self.drops_signatures:
            out["signatures"] = False
        if not self.drops_recommendations:
            out["recommendations"] = False
        if self.strictness != OUTSIDE_ENGLISH_POWER:
            out["strictness"] = self.strictness
        return out

    def probabilities(
        self,
        blocks: Sequence[Block],
        stoplist: frozenset[str] | None,
        cues: np.ndarray | None = None,
    ) -> np.ndarray:
        x = page_features(blocks, stoplist, cues, cheap=self.model.cheap_features)
        return self.model.probabilities(x, blocks)

    def label(
        self,
        blocks: Sequence[Block],
        stoplist: frozenset[str] | None,
        cues: np.ndarray | None = None,
        language: str | None = None,
        tree: Any = None,
        head: HeadFacts | None = None,
    ) -> list[LabeledBlock]:
        """`label_noted` without the page notes."""
        return self.label_noted(blocks, stoplist, cues, language, tree, head)[0]

    def label_noted(
        self,
        blocks: Sequence[Block],
        stoplist: frozenset[str] | None,
        cues: np.ndarray | None = None,
        language: str | None = None,
        tree: Any = None,
        head: HeadFacts | None = None,
    ) -> tuple[list[LabeledBlock], tuple[str, ...]]:
        """The labelled blocks and the page notes (`pipeline.rules.markup_guard`'s,
        `pipeline.rules.asset_urls`',
        `pipeline.rules.script_notice`'s, `pipeline.rules.support_appeal`'s,
        `pipeline.rules.consent_guard`'s, `pipeline.rules.closed_dialogs`',
        `pipeline.rules.facet_filters`',
        `pipeline.rules.link_guard`'s, `pipeline.rules.link_lists`'s,
        `pipeline.rules.teaser_lists`'s, `pipeline.rules.lead_rescue`'s,
        `pipeline.rules.code_rescue`'s, `pipeline.rules.list_rescue`'s, then
        `pipeline.rules.title_heading`'s and `pipeline.rules.description_lead`'s).

        ``cues``: the page's `pipeline.html.page_cues.page_cues`, which `pipeline.clean_html`
        computes from the parsed page and its URL; None labels the page as one that declares
        nothing and has no known URL. ``language``: the page's ISO 639 code, which decides
        whether the rule is the stricter one and the link guard looks at the page (None: both).
        ``tree``: the parsed page the blocks were cut from, which the consent guard and the
        closed dialogs read (None: neither). ``head``: what the page's head says
        (`pipeline.html.metadata.read_head`), whose titles the title heading is matched to
        (None: no title heading kept, nor the description's lead).
        The guards, whose bounds were set on the model's probabilities, see those, and so do the
        blocks' scores."""
        # Transposed once for the features, the page rule and the guards, which read the texts,
        # sizes, shapes and more.
        fields = block_fields(blocks)
        x = page_features(blocks, stoplist, cues, fields, self.model.cheap_features)
        probs = self.model.probabilities(x, blocks)
        notes: tuple[str, ...] = ()
        if self.threshold is None:
            keep, notes = guarded(
                page_rule(self.model, probs, blocks, language, self.strictness, fields),
                probs,
                blocks,
                stoplist,
                language,
                self.link_guard,
                self.lead_rescue,
                self.link_lists,
                self.teaser_lists,
                tree,
                self.consent_guard,
                self.code_rescue,
                head,
                self.title_heading,
                self.list_rescue,
                fields,
                self.closed_dialogs,
                self.description_lead,
                self.facet_filters,
            )
        else:  # an explicit threshold is taken as it is, without the fallback or the guard
            texts = [b.text for b in blocks]
            keep = decide(probs, self.threshold, 0.0, texts, self.model.drop_repeats)
        good, bad = Verdict.GOOD, Verdict.BAD
        # tuple.__new__ builds each LabeledBlock without the NamedTuple's Python-level __new__:
        # 0.13 instead of 0.23 ms on a page of 250 blocks, and this runs for every page.
        make = tuple.__new__
        labeled = [
            make(LabeledBlock, (b, good if k else bad, None, p, None))
            for b, k, p in zip(blocks, keep.tolist(), probs.tolist(), strict=True)
        ]
        return labeled, notes


class FastNeighboursCleaner(NeighboursCleaner):
    """`neighbours` with the fast model (`pipeline.learned.model.FAST_MODEL`): trees alone over
    the cheap feature set, which needs no pass over the blocks' characters or stopwords and no
    token runs from the walk; the same page rule and guards. For crawls where cost decides:
    BENCHMARKS.md, "A fast variant", gives its quality and speed beside the default's."""

    name: ClassVar[str] = "neighbours-fast"
    needs_runs: ClassVar[bool] = False
    default_model: ClassVar[Path] = FAST_MODEL

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not self.model.cheap_features:
            # Without the walk's token runs, a full-feature model would read BTE's column as 0.
            raise ValueError(
                "neighbours-fast needs a model on the cheap feature set (feature_set: cheap); "
                "use the neighbours cleaner for this model"
            )


# Its options are `NeighboursCleaner`'s: declared so that `inspect.signature`, and with it the
# registry's parameter checks, names them rather than ``**options``.
FastNeighboursCleaner.__signature__ = inspect.signature(  # type: ignore[attr-defined]
    NeighboursCleaner
)
