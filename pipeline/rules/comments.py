"""Reader comments are their own kind of text: kept blocks in a comment section are labelled
``comment`` (`pipeline.types.Verdict.COMMENT`), not content.

A blog post or a news article is often followed by its readers' comments, and the model, which
sees prose, keeps them: the main text of the page then holds more comment than article. Every
reference we score against leaves comments out, so the default does too; ``include_comments``
(`pipeline.clean_html`) puts them back in the text. Only blocks the model kept are relabelled:
what it dropped (reply buttons, the comment form) stays boilerplate, so the text with
``include_comments=True`` is exactly the text the model's labels give.

A kept block is a comment when it lies in a comment section, found from the parsed page:

- an element that the page marks as its comments: the WordPress and common theme ids and classes
  (``#comments``, ``.comment-list``, ``.comment-body``, ``.comments-area``), Disqus
  (``#disqus_thread``), and schema.org microdata (``itemtype`` Comment or UserComments,
  ``itemprop="comment"``), see `CONTAINER_SELECTOR`. The block belongs to it when the block's
  place in the text of the page's body falls within the element's text (`in_containers`): the
  headline that a "3 comments on <title>" heading repeats lies before it and stays content;
- or a run of replies titled "re: <title>" (at least `MIN_REPLIES` blocks starting "re:", "回复:"
  and the like): from the first such block on, the blocks laid out like the replies.

Customer reviews under a product are a shop's reader comments: text by its buyers, not the
product's description, and WCXB's product references leave them out. A kept block is one when it
lies in a reviews section (an id in `REVIEW_SECTION_IDS` such as ``reviews``, a class in
`REVIEW_SECTION_CLASSES`: Amazon's and the review widgets' lists) or in one of at least
`MIN_REVIEWS` review items (schema.org Review microdata, Amazon's ``data-hook="review"``, a class
in `REVIEW_ITEM_CLASSES`). One review item alone is not enough: an editorial review marks its own
article up as a schema.org Review. A bare ``reviews`` class is not one either: review sites wrap
their own articles in it. The page gets the note `REVIEWS_LABELLED` as well.

Nothing is relabelled on a forum thread or a Q&A page, whose posts are the content: a page is one
when its URL has a forum's shape (``/t/``, ``/threads/``, ``viewtopic.php``), its head declares a
discussion (schema.org DiscussionForumPosting, QAPage), its body carries such microdata, or its
markup names forum software (Discourse, phpBB, vBulletin, XenForo, ...). Nor when relabelling
would leave less than `pipeline.rules.relabel.MIN_LEFT_CHARS` of content: a page that is all
comments is what it is.

The rule reads the tree only on pages where a kept block sits in an element whose class or id
names comments or reviews, or that have "re:" blocks (see `label_comments`). Measured in
docs/library.md, "Reader comments".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pipeline.compiled import check_fresh
from pipeline.html.class_cues import ANCESTOR_CUES
from pipeline.html.page_cues import declared_types
from pipeline.rules.relabel import relabel_kept
from pipeline.types import Block, LabeledBlock, Verdict

# Compiled with Cython when the install can (hatch_build.py): this runs over every block of
# every page.
check_fresh(__name__, __file__)

# The page notes that say kept blocks were labelled comments, and that some of them were reviews.
COMMENTS_LABELLED = "comments"
REVIEWS_LABELLED = "reviews"

MIN_REPLIES = 3
# Placing blocks in the page's text (`in_containers`): scripts, styles and hidden widgets lie
# between blocks, so a block may be found far past the previous one, but a short one found that
# far is more likely a repeat of its text further on.
_MAX_GAP = 3000
_SURE_CHARS = 25

CONTAINER_SELECTOR = ", ".join(
    (
        "#comments",
        "#comment-list",
        "#commentlist",
        ".comments",
        ".comment-list",
        ".commentlist",
        ".comments-area",
        ".comments-list",
        ".comment-body",
        ".comment-content",
        "#disqus_thread",
        ".fb-comments",
        '[itemtype*="schema.org/Comment"]',
        '[itemtype*="schema.org/UserComments"]',
        '[itemprop="comment"]',
    )
)
# A reviews section: the common ids and classes, Amazon's list, and those of the review widgets
# shops embed (Yotpo, Stamped, Shopify Product Reviews, Okendo, Judge.me).
REVIEW_SECTION_IDS = frozenset(
    ("reviews", "customer-reviews", "customerReviews", "product-reviews", "cm-cr-dp-review-list")
)
REVIEW_SECTION_CLASSES = frozenset(
    (
        "customer-reviews",
        "product-reviews",
        "review-list",
        "reviews-list",
        "yotpo-reviews",
        "stamped-reviews",
        "spr-reviews",
        "okeReviews-reviews",
        "jdgm-rev-widg__reviews",
    )
)
# One customer review: schema.org microdata (``itemprop="review"``, an ``itemtype`` of
# schema.org/Review), Amazon's ``data-hook="review"``, the widgets' items, and the text classes
# that shops' own templates give a review's body.
REVIEW_ITEM_CLASSES = frozenset(
    ("jdgm-rev", "yotpo-review", "stamped-review", "spr-review", "review-text", "reviewText")
)
MIN_REVIEWS = 2
# Every element that may be one of them, in one selector pass, sorted by `_review_kind`: a pass
# over the exact names cost twice as much (lexbor tests each selector of a list on every element).
_REVIEW_CANDIDATES = ", ".join(
    (
        '[class*="review" i]',
        '[id*="review" i]',
        '[class*="jdgm-rev"]',
        '[itemprop~="review"]',
        '[data-hook="review"]',
        '[itemtype*="schema.org/Review"]',
    )
)
_FORUM_TYPES = frozenset({"DiscussionForumPosting", "QAPage", "Question", "Answer"})
_FORUM_URL = re.compile(
    r"/(?:forums?|threads?|t|topics?|questions?|discussions?|community|boards?|bbs|d)/"
    r"|viewtopic|showthread|forumdisplay|showtopic|/thread-\d|/forum\.php|/f\d+/"
    # link aggregators, where the thread is the page: Reddit, Hacker News, Lemmy
    r"|/comments/|ycombinator\.com/item|/post/\d+/$"
)
_HEAD_SELECTOR = 'meta[name="generator"], meta[property="og:url"], link[rel="canonical"]'
_FORUM_MARKUP = ", ".join(
    (
        '[itemtype*="DiscussionForumPosting"]',
        '[itemtype*="QAPage"]',
        '[itemtype*="schema.org/Question"]',
        '[itemtype*="schema.org/Answer"]',
        "#phpbb",
        ".phpbb",
        "#vbulletin_html",
        ".vbulletin",
        "#XenForo",
        ".XenForo",
        "[data-xf-init]",
        "#discourse-modal",
        ".discourse-root",
        "#mybb",
        ".ipsApp",
        "#smfheader",
        ".topic-post",
        ".postbody",
        ".post_body",
    )
)
_FORUM_GENERATORS = re.compile(
    r"discourse|phpbb|vbulletin|xenforo|mybb|simple machines|invision|nodebb|flarum|vanilla"
    r"|discuz|phpwind|fluxbb|punbb|bbpress",
    re.IGNORECASE,
)
_COMMENT_CUE = 1 << next(i for i, (name, _) in enumerate(ANCESTOR_CUES) if name == "comment")
_REVIEW_CUE = 1 << next(i for i, (name, _) in enumerate(ANCESTOR_CUES) if name == "review")
_REPLY = re.compile(r"^\s*(?:re|回复|回覆|답변|ответ)\s*[:：]", re.IGNORECASE)
# What a text matching _REPLY can start with: its words' first letters, in either case, and every
# blank (str.isspace: none is above U+3000), so that one set lookup decides.
_REPLY_FIRST = frozenset("rR回답оО") | frozenset(c for c in map(chr, range(0x3001)) if c.isspace())


def squeeze(text: str) -> str:
    """``text`` without its white space: how blocks are placed in a container's text."""
    return "".join(text.split())


def _forum_url(url: str) -> bool:
    url = url.strip().lower()
    if not url:
        return False
    path = url.split("#", 1)[0]
    if "ycombinator.com/item" not in path:
        path = path.split("?", 1)[0]
    return _FORUM_URL.search(path.rstrip("/") + "/") is not None


def forum_by_address(urls: Sequence[str | None], schema_types: frozenset[str]) -> bool:
    """Whether a page is a forum thread or a Q&A page by what costs no pass over it: one of
    ``urls`` (its address, its canonical address) has a forum's shape, or ``schema_types`` (its
    head's JSON-LD types) declare a discussion. `is_forum` also reads the head and the body."""
    return any(_forum_url(url) for url in urls if url) or not schema_types.isdisjoint(_FORUM_TYPES)


def is_forum(tree: Any, url: str | None, schema_types: frozenset[str] | None = None) -> bool:
    """Whether the page is a forum thread or a Q&A page (see the module's docstring).
    ``schema_types``: the head's JSON-LD types when the caller has read them
    (`pipeline.html.metadata.read_head`), else they are read here."""
    urls = [url or ""]
    head = tree.head
    if head is not None:
        for node in head.css(_HEAD_SELECTOR):
            attrs = node.attributes
            if attrs.get("name") == "generator":
                if _FORUM_GENERATORS.search(attrs.get("content") or ""):
                    return True
            else:
                urls.append(attrs.get("href") or attrs.get("content") or "")
    if any(_forum_url(u) for u in urls):
        return True
    if schema_types is None:
        _, schema_types = declared_types(tree)
    if schema_types & _FORUM_TYPES:
        return True
    return tree.css_first(_FORUM_MARKUP) is not None


def _containers(tree: Any) -> list[str]:
    """The squeezed texts of the outermost comment containers, in document order."""
    root = tree.body
    if root is None:
        return []
    return container_texts(root.css(CONTAINER_SELECTOR))


def _review_containers(tree: Any) -> list[str]:
    """The squeezed texts of the outermost reviews sections and, when there are at least
    `MIN_REVIEWS` of them, review items, in document order."""
    root = tree.body
    if root is None:
        return []
    kinds = [(node, _review_kind(node.attributes)) for node in root.css(_REVIEW_CANDIDATES)]
    items = container_texts([node for node, kind in kinds if kind is _ITEM])
    wanted = (_SECTION, _ITEM) if len(items) >= MIN_REVIEWS else (_SECTION,)
    return container_texts([node for node, kind in kinds if kind in wanted])


_SECTION, _ITEM = "section", "item"


def _review_kind(attrs: dict[str, str | None]) -> str | None:
    """Whether an element with attributes ``attrs`` is a reviews section (`_SECTION`), a review
    item (`_ITEM`), or neither (None): see `REVIEW_SECTION_IDS` and what follows it."""
    classes = set((attrs.get("class") or "").split())
    if (
        classes & REVIEW_ITEM_CLASSES
        or "review" in (attrs.get("itemprop") or "").split()
        or attrs.get("data-hook") == "review"
        or "schema.org/Review" in (attrs.get("itemtype") or "")
    ):
        return _ITEM
    if attrs.get("id") in REVIEW_SECTION_IDS or classes & REVIEW_SECTION_CLASSES:
        return _SECTION
    return None


def container_texts(nodes: Sequence[Any]) -> list[str]:
    """The squeezed texts of the outermost of ``nodes`` (elements in document order, as a
    selector pass returns them), empty texts left out: what `in_containers` places blocks in.
    `pipeline.rules.consent_guard` shares it."""
    if not nodes:
        return []
    seen: set[int] = set()
    texts: list[str] = []
    for node in nodes:  # document order: an outer container comes before what it holds
        ident = node.mem_id
        if ident in seen:
            continue
        parent, inside = node.parent, False
        while parent is not None:
            if parent.mem_id in seen:
                inside = True
                break
            parent = parent.parent
        seen.add(ident)
        if not inside:
            text = squeeze(node.text(deep=True) or "")
            if text:
                texts.append(text)
    return texts


def in_containers(
    blocks: Sequence[Block], tree: Any, containers: list[str], *, unique: bool = False
) -> list[int]:
    """The blocks that lie inside one of ``containers``: each block is placed in the squeezed
    text of the whole body, in document order from where the previous one ended, and is inside
    when its place falls in a container's span. A block found more than `_MAX_GAP` characters on
    is placed only when it is at least `_SURE_CHARS` long (a short text so far on is more likely
    a repeat than the block), or with ``unique`` when its text occurs nowhere else in the body
    (then it cannot be a repeat: a dialog's short heading far below the article); one not found
    is not placed."""
    body = squeeze(tree.body.text(deep=True) or "")
    spans: list[tuple[int, int]] = []
    start = 0
    for text in containers:
        at = body.find(text, start)
        if at < 0:
            at = body.find(text)
        if at >= 0:
            spans.append((at, at + len(text)))
            start = at + len(text)
    if not spans:
        return []
    found: list[int] = []
    cursor = 0
    for i, block in enumerate(blocks):
        text = squeeze(block.text)
        if not text:
            continue
        at = body.find(text, cursor)
        if at < 0:
            continue
        if (
            at - cursor > _MAX_GAP
            and len(text) < _SURE_CHARS
            and (not unique or body.find(text, at + 1) >= 0 or body.rfind(text, 0, at) >= 0)
        ):
            continue
        cursor = end = at + len(text)
        if any(lo <= at and end <= hi for lo, hi in spans):
            found.append(i)
    return found


def _replies(blocks: Sequence[Block]) -> list[int]:
    """The blocks of a "re: <title>" reply thread (see the module's docstring)."""
    # Testing a block's first character keeps the regex off nearly every block of nearly every
    # page, where it was most of this module's cost.
    first = _REPLY_FIRST
    starts = [
        i for i, b in enumerate(blocks) if b.text[:1] in first and _REPLY.match(b.text) is not None
    ]
    if len(starts) < MIN_REPLIES:
        return []
    first_start, last = starts[0], starts[-1]
    shapes = {blocks[i].dom_path for i in range(first_start, last + 1)}
    end = last + 1
    while end < len(blocks) and blocks[end].dom_path in shapes:
        end += 1
    return list(range(first_start, end))


def find_sections(
    blocks: Sequence[Block],
    tree: Any,
    url: str | None,
    *,
    look_for_containers: bool = True,
    look_for_reviews: bool = False,
    schema_types: frozenset[str] | None = None,
) -> tuple[set[int], set[int]]:
    """The indexes of the blocks that lie in the page's comment sections, and of those in its
    customer reviews (only with ``look_for_reviews``; none of the first); both empty on a forum.
    ``look_for_containers=False`` skips the comment selector pass (reply threads are still
    found); ``schema_types`` as `is_forum` takes them."""
    containers = _containers(tree) if tree is not None and look_for_containers else []
    reviews = _review_containers(tree) if tree is not None and look_for_reviews else []
    replies = _replies(blocks)
    if not containers and not reviews and not replies:
        return set(), set()
    if tree is not None and is_forum(tree, url, schema_types):
        return set(), set()
    found = set(replies)
    if containers:
        found.update(in_containers(blocks, tree, containers))
    in_reviews = set(in_containers(blocks, tree, reviews)) - found if reviews else set()
    return found, in_reviews


def label_comments(
    labeled: Sequence[LabeledBlock],
    tree: Any,
    url: str | None,
    schema_types: frozenset[str] | None = None,
) -> tuple[list[LabeledBlock], tuple[str, ...]]:
    """``labeled`` with the kept blocks of the page's comment sections labelled
    `Verdict.COMMENT`, and the page notes when any were (see the module's docstring).
    ``schema_types``: the head's JSON-LD types, when read already (`is_forum`)."""
    good = Verdict.GOOD
    kept = look = reviews = False
    for lb in labeled:
        if lb.verdict is good:
            kept = True
            cues = lb.block.ancestor_cues
            look = look or bool(cues & _COMMENT_CUE)
            reviews = reviews or bool(cues & _REVIEW_CUE)
            if look and reviews:
                break
    if not kept:
        return list(labeled), ()
    # The selector pass and the text matching cost about a tenth of a page's cleaning, so they
    # run only where a kept block sits in an element whose class or id names comments (the
    # walk's cues: "comment", "comments", "reply", ...). A comment section that no class or id
    # names (bare microdata, Disqus's thread, which crawls rarely hold: Disqus serves comments
    # in an iframe) is not looked for; searching the page's source for such markers cost
    # 0.13 ms per marker per WCXB page. Reply threads need neither. Reviews, likewise, only
    # where a kept block sits in an element that names reviews or ratings (a page in fourteen).
    found, in_reviews = find_sections(
        [lb.block for lb in labeled],
        tree,
        url,
        look_for_containers=look,
        look_for_reviews=reviews,
        schema_types=schema_types,
    )
    hit = {i for i in found | in_reviews if labeled[i].verdict is good}
    out = relabel_kept(labeled, hit, Verdict.COMMENT)
    if out is None:
        return list(labeled), ()
    if hit.isdisjoint(in_reviews):
        return out, (COMMENTS_LABELLED,)
    return out, (COMMENTS_LABELLED, REVIEWS_LABELLED)
