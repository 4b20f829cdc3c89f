"""jusText's block segmentation on selectolax's lexbor parser.

The page is walked iteratively (first_child / next / parent), producing the start, end and text
events jusText's SAX handler reacts to, so nesting depth never reaches Python's recursion limit.
What jusText's lxml preprocessor removes is skipped during the walk instead of being deleted from
the tree first: one pass over the DOM instead of two.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from selectolax.lexbor import LexborHTMLParser, LexborNode

from pipeline.types import Block

# jusText's PARAGRAPH_TAGS: a block starts and ends at each of these.
BLOCK_TAGS = frozenset(
    (
        "body blockquote caption center col colgroup dd div dl dt fieldset form legend optgroup "
        "option p pre table td textarea tfoot th thead tr ul li h1 h2 h3 h4 h5 h6"
    ).split()
)
# Dropped with their content: jusText's preprocessor kills <head>, scripts, styles, embedded
# applets and form controls (lxml Cleaner scripts/style/embedded/forms); noscript and template never
# render as page text in a browser that runs scripts, so they go too.
KILLED_TAGS = frozenset(
    "head script style noscript template applet button input select textarea -comment".split()
)
# Dropped as tags but their content kept, as lxml's Cleaner does for forms and embedded content.
# A <form> therefore never opens a block, exactly as in jusText.
UNWRAPPED_TAGS = frozenset("form iframe embed layer object param".split())
VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()
)

_HORIZONTAL_SPACE = re.compile(r"[^\S\n\r]+")
_LINE_BREAK_RUN = re.compile(r" ?[\n\r]\s*")
_HEADING_TAGS = frozenset(f"h{i}" for i in range(10))
# Paths deeper than this are stored abbreviated: joining a 100,000-element path for every block
# would make deep pages quadratic. Heading detection uses a counter, so it is not affected.
MAX_PATH_ELEMENTS = 48


class PageTooComplex(ValueError):
    """The page has more DOM nodes than the configured cap allows."""


def _normalize(text: str) -> str:
    """jusText's whitespace rule: a run with a line break becomes one newline, any other one space.

    Done as two substitutions with constant replacements (no per-match Python callback): first
    every run without a line break becomes one space, then what is left of a run with one becomes
    a newline. After the first step spaces come singly, so the second cannot backtrack far.
    """
    text = _HORIZONTAL_SPACE.sub(" ", text)
    if "\n" in text or "\r" in text:
        text = _LINE_BREAK_RUN.sub("\n", text)
    return text


def _path_string(path: list[str]) -> str:
    if len(path) > MAX_PATH_ELEMENTS:
        return ".".join(path[:2]) + "…." + ".".join(path[2 - MAX_PATH_ELEMENTS :])
    return ".".join(path)


def _dom_path(path: list[str], path_strings: list[str | None]) -> str:
    if not path_strings:
        return ""
    return path_strings[-1] or _path_string(path)


def _block(
    index: int,
    pieces: list[str],
    dom_path: str,
    style: str,
    heading: bool,
    link_chars: int,
    tags: int,
    markup: int,
    runs: list[int] | None = None,
) -> Block:
    text = _normalize("".join(pieces).strip())
    return Block(
        index,
        text,
        path_tag(dom_path),
        dom_path,
        style,
        heading,
        len(text),
        len(text.split()),
        link_chars,
        tags,
        markup,
        _merge_runs(runs) if runs is not None else None,
    )


def _merge_runs(runs: list[int]) -> tuple[int, ...]:
    """Collapse consecutive token counts and consecutive tag counts into single runs."""
    merged: list[int] = []
    for r in runs:
        if r == 0:
            continue
        if merged and (merged[-1] > 0) == (r > 0):
            merged[-1] += r
        else:
            merged.append(r)
    return tuple(merged)


def parse(html: str) -> LexborHTMLParser:
    """Parse HTML text with lexbor (the one place a parser is constructed)."""
    return LexborHTMLParser(html)


def segment(
    html: str | LexborHTMLParser,
    *,
    max_nodes: int | None = None,
    record_runs: bool = False,
) -> list[Block]:
    """Split a page into jusText blocks, in document order.

    This is jusText's ParagraphMaker driven by an iterative walk. It is written as one function
    with local state because it runs once per DOM node: method calls and attribute look-ups per
    node cost more than the parse itself.

    ``max_nodes`` bounds the work on pathological pages: past it, `PageTooComplex` is raised so the
    caller can record a rejection with that reason instead of spending unbounded time.
    ``record_runs`` fills `Block.runs` with the block's token/tag sequence for BTE; tags between
    blocks that hold no text are carried into the next block's runs, so none is lost.
    """
    tree = parse(html) if isinstance(html, str) else html
    root = tree.root
    blocks: list[Block] = []
    if root is None:
        return blocks
    limit = max_nodes if max_nodes is not None else -1
    block_tags = BLOCK_TAGS
    killed_tags = KILLED_TAGS
    unwrapped_tags = UNWRAPPED_TAGS
    heading_tags = _HEADING_TAGS
    void_tags = VOID_TAGS
    normalize = _normalize

    path: list[str] = []
    # path_strings[i] is the dotted path of path[:i + 1], built incrementally so a block boundary
    # costs one look-up; None past MAX_PATH_ELEMENTS, where the abbreviated form is built instead.
    path_strings: list[str | None] = []
    styles: list[str] = []
    headings_open = 0
    link_depth = 0
    br = False
    # State of the block being built; the block's path and style are those when it was opened.
    pieces: list[str] = []
    link_chars = tags = markup = 0
    dom_path = ""
    style = ""
    heading = False
    runs: list[int] | None = [] if record_runs else None

    seen = 0
    depth = 0  # how many ancestors of `node` below `root` we have descended into
    node: LexborNode | None = root
    while node is not None:
        seen += 1
        if seen == limit:
            raise PageTooComplex(f"page has more than {max_nodes} DOM nodes")
        tag = node.tag
        descend = False
        if tag == "-text":
            content = node.text_content
            if not content or content.isspace():
                # jusText drops whitespace-only text nodes, which glues "a</b> <i>b" into "ab";
                # one space keeps words that only inter-tag whitespace separates apart.
                if pieces and pieces[-1][-1:] not in (" ", "\n"):
                    pieces.append(" ")
            else:
                text = normalize(content)
                pieces.append(text)
                if runs is not None:
                    runs.append(len(text.split()))
                if link_depth:
                    link_chars += len(text)
                br = False
        elif tag in killed_tags or tag is None or tag[0] in "-!":
            pass
        elif tag in unwrapped_tags:
            descend = True
        else:
            descend = True
            if not path:
                path_strings.append(tag)
            elif len(path) < MAX_PATH_ELEMENTS:
                path_strings.append(path_strings[-1] + "." + tag)  # type: ignore[operator]
            else:
                path_strings.append(None)
            path.append(tag)
            if tag in heading_tags:
                headings_open += 1
            attrs = node.attributes
            size = len(tag) + 2
            for name, value in attrs.items():
                size += len(name) + 1 + (len(value) + 3 if value is not None else 0)
            if tag not in void_tags:
                size += len(tag) + 3
            if tag in block_tags:
                cls = attrs.get("class")
                styles.append(tag + "." + ".".join(cls.split()) if cls else tag)
                if pieces:
                    blocks.append(
                        _block(
                            len(blocks),
                            pieces,
                            dom_path,
                            style,
                            heading,
                            link_chars,
                            tags,
                            markup,
                            runs,
                        )
                    )
                    pieces = []
                    runs = [] if record_runs else None
                link_chars = tags = 0
                markup = size
                dom_path = _dom_path(path, path_strings)
                style = styles[-1]
                heading = headings_open > 0
            elif tag == "br" and br:
                # <br><br> separates blocks and is not counted as a tag of either.
                tags -= 1
                if pieces:
                    blocks.append(
                        _block(
                            len(blocks),
                            pieces,
                            dom_path,
                            style,
                            heading,
                            link_chars,
                            tags,
                            markup,
                            runs,
                        )
                    )
                    pieces = []
                    runs = [] if record_runs else None
                link_chars = tags = 0
                markup = size
                dom_path = _dom_path(path, path_strings)
                style = styles[-1] if styles else ""
                heading = headings_open > 0
            else:
                br = tag == "br"
                if br:
                    pieces.append(" ")
                elif tag == "a":
                    link_depth += 1
                tags += 1
                markup += size
            if runs is not None:
                runs.append(-1)
        if descend:
            child = node.first_child
            if child is not None:
                node = child
                depth += 1
                continue
        # Leaving `node`: close it, then climb while there is no next sibling. Every ancestor
        # reached by climbing was descended into, so it is an entered element to close.
        while True:
            if descend and tag not in unwrapped_tags:
                if runs is not None and tag not in void_tags:
                    runs.append(-1)
                path.pop()
                path_strings.pop()
                if tag in heading_tags:
                    headings_open -= 1
                if tag in block_tags:
                    styles.pop()
                    if pieces:
                        blocks.append(
                            _block(
                                len(blocks),
                                pieces,
                                dom_path,
                                style,
                                heading,
                                link_chars,
                                tags,
                                markup,
                                runs,
                            )
                        )
                        pieces = []
                        runs = [] if record_runs else None
                    link_chars = tags = markup = 0
                    dom_path = _dom_path(path, path_strings)
                    style = styles[-1] if styles else ""
                    heading = headings_open > 0
                elif tag == "a" and link_depth:
                    # jusText clears its link flag at any </a>; a depth counter is the same for
                    # valid HTML and keeps a stray end tag from leaking link state.
                    link_depth -= 1
            if depth == 0:
                node = None
                break
            nxt = node.next
            if nxt is not None:
                node = nxt
                break
            node = node.parent
            depth -= 1
            if node is None:
                break
            tag = node.tag
            descend = True
    if pieces:
        blocks.append(
            _block(len(blocks), pieces, dom_path, style, heading, link_chars, tags, markup)
        )
    return blocks


def path_tag(dom_path: str) -> str:
    """The innermost tag of a dotted DOM path."""
    return dom_path.rpartition(".")[2]


def block_texts(blocks: Iterable[Block]) -> list[str]:
    return [b.text for b in blocks]
