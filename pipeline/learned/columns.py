"""The learned cleaner's columns: which features a block's row holds, in which order.

This is the contract between the features (`pipeline.learned.features`, `pipeline.learned.stacked`),
the training script and the model file, which lists the names it was trained on: a model is
refused when they differ. Adding a column here and filling it in the features is all a new
feature takes; everything else reads the layout from these names.

A row is the block's own columns (`OWN_FEATURES`), then copies of some of them from the blocks
one and two away and means over two windows (`FEATURE_NAMES`). A stacked second pass adds
`STACK_FEATURES`.
"""

from __future__ import annotations

from pipeline.html.class_cues import ANCESTOR_CUES, STYLE_CUES
from pipeline.html.page_cues import PAGE_CUE_NAMES
from pipeline.types import CfClass

# What the classes and ids of a block's enclosing elements name (`Block.ancestor_cues`), one column
# each; the block element's own classes are the `style_*` columns (`pipeline.html.class_cues`).
ANCESTOR_NAMES = tuple(f"anc_{name}" for name, _ in ANCESTOR_CUES)

PATH_CUES = ("nav", "footer", "header", "aside", "article", "main", "table", "ul", "ol", "a")
TAG_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("p", frozenset({"p"})),
    ("li", frozenset({"li", "dd", "dt"})),
    ("cell", frozenset({"td", "th", "tr", "caption"})),
    ("div", frozenset({"div", "body", "center", "fieldset", "blockquote", "form"})),
    ("heading", frozenset(f"h{i}" for i in range(1, 7))),
    ("pre", frozenset({"pre"})),
)
CF_ORDER = (CfClass.GOOD, CfClass.NEARGOOD, CfClass.SHORT, CfClass.BAD)

OWN_FEATURES: tuple[str, ...] = (
    "log_chars",
    "log_words",
    "link_density",
    "text_density",
    "log_markup",
    "log_tags",
    "stopword_density",
    "has_stoplist",
    *(f"cf_{c.value}" for c in CF_ORDER),
    "bte_fraction",
    "is_heading",
    *(f"tag_{name}" for name, _ in TAG_GROUPS),
    *(f"path_{cue}" for cue in PATH_CUES),
    "path_depth",
    *(f"style_{name}" for name, _ in STYLE_CUES),
    "position",
    "chars_before",
    "digit_ratio",
    "upper_ratio",
    "punct_ratio",
    "letter_ratio",
    "sentence_ends",
    "ends_sentence",
    "share_of_page",
    "rel_to_longest",
    "same_style_as_longest",
    "path_prefix_with_longest",
    # Page context (see `_context_features`).
    "path_share",
    "path_blocks",
    "path_link_density",
    "path_stopword_density",
    "parent_share",
    "parent_link_density",
    "style_group_share",
    "style_group_link_density",
    "is_main_path",
    "is_main_parent",
    "rel_log_chars",
    "rel_link_density",
    "rel_stopword_density",
    "text_repeats",
    "offset_from_longest",
    "in_good_span",
    "good_chars_before",
    "style_group_blocks",
    "after_h1",
    "from_h1",
    "near_h1",
    # Page-level columns: what kind of page this is (an article, a list of links, a shop).
    "page_link_density",
    "page_good_share",
    "page_longest_share",
    "log_page_blocks",
    "log_page_chars",
    # What the classes and ids of the elements enclosing the block say they hold
    # (`Block.ancestor_cues`): a review list, a footer, a sidebar around a plain <p>.
    *ANCESTOR_NAMES,
    # What the page declares itself to be, and its URL's shape (`pipeline.html.page_cues`): last, so
    # that every column before them is computed from the blocks alone.
    *PAGE_CUE_NAMES,
)
# Page-level columns, the same for every block of a page: the neighbour copies would only repeat
# them.
PAGE_COLUMNS = frozenset(
    {
        "has_stoplist",
        "page_link_density",
        "page_good_share",
        "page_longest_share",
        "log_page_blocks",
        "log_page_chars",
        *PAGE_CUE_NAMES,
    }
)
# The ancestor cues are not copied either: the neighbours mostly share the same ancestors, and
# with the copies cross-validated F1 was no better (scratch harness, trees alone, one fold
# assignment: +0.0019 over none of these columns with the copies, +0.0023 without).
NEIGHBOUR_COLUMNS = tuple(
    i for i, f in enumerate(OWN_FEATURES) if f not in PAGE_COLUMNS and f not in ANCESTOR_NAMES
)
# Two blocks away only the strongest evidence is repeated, to keep the rows narrow.
FAR_FEATURES = (
    "log_chars",
    "link_density",
    "text_density",
    "stopword_density",
    "cf_good",
    "cf_bad",
    "is_heading",
    "tag_p",
    "tag_li",
    "bte_fraction",
    "ends_sentence",
    "path_share",
    "after_h1",
)
WINDOWS = (3, 10)
WINDOW_FEATURES = (
    "log_chars",
    "link_density",
    "stopword_density",
    "bte_fraction",
    "cf_good",
    "ends_sentence",
)

FEATURE_NAMES: tuple[str, ...] = (
    *OWN_FEATURES,
    *(f"prev_{OWN_FEATURES[i]}" for i in NEIGHBOUR_COLUMNS),
    *(f"next_{OWN_FEATURES[i]}" for i in NEIGHBOUR_COLUMNS),
    *(f"prev2_{name}" for name in FAR_FEATURES),
    *(f"next2_{name}" for name in FAR_FEATURES),
    *(f"win{w}_{name}" for w in WINDOWS for name in WINDOW_FEATURES),
)
N_FEATURES = len(FEATURE_NAMES)
OWN_INDEX = {name: i for i, name in enumerate(OWN_FEATURES)}
FAR_COLUMNS = [OWN_INDEX[name] for name in FAR_FEATURES]
WINDOW_COLUMNS = [OWN_INDEX[name] for name in WINDOW_FEATURES]

# The fast model's feature set (`page_features(..., cheap=True)`): the columns that need no pass
# over a block's characters or tokens. Left out, by name part: stopword densities, jusText's
# context-free class and what derives from it (the good span, the page's good share), BTE's
# stretch (it needs the walk's token runs), the character-class ratios and sentence ends. The
# walk's own counts, the tags, paths, classes, positions and page context are kept; on the
# held-out sites trees over them score within 0.005 of trees over every column
# (`bench/fast_trees.py`), and computing them costs about half of `page_features`.
_CHARACTER_CLASSES = OWN_FEATURES[
    OWN_FEATURES.index("digit_ratio") : OWN_FEATURES.index("ends_sentence") + 1
]
CHEAP_EXCLUDED: tuple[str, ...] = (
    *("stopword", "has_stoplist", "cf_", "bte_"),
    *_CHARACTER_CLASSES,
    *("in_good_span", "good_chars_before", "page_good_share"),
)
CHEAP_COLUMNS: tuple[int, ...] = tuple(
    i for i, name in enumerate(FEATURE_NAMES) if not any(part in name for part in CHEAP_EXCLUDED)
)


# Pass-2 ("stacked") columns: the first model's content probability of the block, of its
# neighbours, over windows, and over the blocks sharing its path, parent path and class string.
# A menu item between two paragraphs and a paragraph inside a list of teasers look alike on their
# own; what the first pass concluded about their surroundings and their structural siblings
# separates them, and pulls a page's repeated items (a listing's entries) in or out together.
STACK_FEATURES: tuple[str, ...] = (
    "p1",
    "prev_p1",
    "next_p1",
    "prev2_p1",
    "next2_p1",
    "win2_p1",
    "win5_p1",
    "win15_p1",
    "path_p1",
    "parent_p1",
    "style_p1",
    "page_max_p1",
    "page_mean_p1",
)
STACK_WINDOWS = (2, 5, 15)
