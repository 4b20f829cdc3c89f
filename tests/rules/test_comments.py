"""Reader comments: kept blocks in a comment section are labelled "comment" and left out of the
text unless ``include_comments``; forum threads, whose posts are the content, keep them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.rules import comments
from pipeline.types import Block, Verdict

ARTICLE = (
    "The city council approved the new budget on Tuesday after a long debate that ran late into "
    "the evening. Most members voted for the draft the administration had put forward, which "
    "gives schools and road repairs more money than last year and cuts the spending on new "
    "office buildings. The mayor said the vote showed that the council could agree on what "
    "mattered most to the people who live here."
)
ARTICLE_2 = (
    "Opposition members had asked for more money for public transport and for the libraries, "
    "which have cut their opening hours twice in three years. Their amendment failed by four "
    "votes. The budget now goes to the regional authority, which has to approve it before the "
    "start of the year, as it does every year."
)
COMMENT_1 = (
    "I went to the meeting and it was the longest I have ever sat through. Still, I am glad the "
    "schools get more this time, my daughter's class has had no new books for five years and "
    "the roof of the gym leaks every time it rains."
)
COMMENT_2 = (
    "Cutting the library hours again is a mistake that we will regret. The library is the only "
    "warm place where many older people in this town can sit and read a paper for free."
)
COMMENT_3 = (
    "Road repairs are long overdue on the east side, the potholes on Mill Street have been there "
    "since the winter before last and nobody at the town hall seems to care about them at all."
)
COMMENTS = (COMMENT_1, COMMENT_2, COMMENT_3)
TITLE = "Council approves the new budget"


def page(body: str, head: str = "") -> str:
    return f"<html><head><title>{TITLE}</title>{head}</head><body>{body}</body></html>"


def article(after: str) -> str:
    return (
        f"<main><article><h1>{TITLE}</h1><p>{ARTICLE}</p><p>{ARTICLE_2}</p>{after}</article></main>"
    )


def wordpress() -> str:
    items = "".join(
        f'<li id="comment-{i}" class="comment even thread-even depth-1">'
        f'<article id="div-comment-{i}" class="comment-body"><footer class="comment-meta">'
        f'<b class="fn">Reader {i}</b> <time>March {i}, 2024</time></footer>'
        f'<div class="comment-content"><p>{text}</p></div>'
        f'<div class="reply"><a class="comment-reply-link" href="#">Reply</a></div>'
        f"</article></li>"
        for i, text in enumerate(COMMENTS, 1)
    )
    return page(
        article(
            f'<div id="comments" class="comments-area"><h2 class="comments-title">'
            f"3 thoughts on &ldquo;{TITLE}&rdquo;</h2>"
            f'<ol class="comment-list">{items}</ol></div>'
        )
    )


def disqus() -> str:
    posts = "".join(
        f'<li class="post"><div class="post-content"><span class="author">user{i}</span>'
        f'<div class="post-message"><p>{text}</p></div></div></li>'
        for i, text in enumerate(COMMENTS, 1)
    )
    return page(article(f'<div id="disqus_thread"><ul id="post-list">{posts}</ul></div>'))


def microdata() -> str:
    items = "".join(
        f'<div class="c-item" itemprop="comment" itemscope itemtype="https://schema.org/Comment">'
        f'<span itemprop="author">Reader {i}</span><p itemprop="text">{text}</p></div>'
        for i, text in enumerate(COMMENTS, 1)
    )
    return page(article(f'<section class="c-wrap">{items}</section>'))


def named_microdata() -> str:
    """Microdata comments in a section whose class names them, as themes mark them up."""
    return microdata().replace('<section class="c-wrap">', '<section class="comments">')


def replies() -> str:
    """A blog post, then replies each titled "re: <title> <date> <name>" in an h4."""
    thread = "".join(
        f"<h4>re: {TITLE} 2009-03-0{i} 12:0{i} reader{i}</h4><p>{text}</p>"
        for i, text in enumerate(COMMENTS, 1)
    )
    return page(
        f"<div class='post'><h1>{TITLE}</h1><p>{ARTICLE}</p><p>{ARTICLE_2}</p></div>" + thread
    )


def discourse() -> str:
    """A Discourse topic: the posts are the content, and their replies sit in comment-like
    markup (``.replies``, ``#comments``-style classes do occur) that must not count."""
    posts = "".join(
        f'<div class="topic-post"><article class="boxed onscreen-post" id="post_{i}">'
        f'<div class="topic-meta-data"><span class="username">user{i}</span></div>'
        f'<div class="comment-body cooked"><p>{text}</p></div></article></div>'
        for i, text in enumerate((ARTICLE, *COMMENTS), 1)
    )
    head = '<meta name="generator" content="Discourse 3.2.0 - https://github.com/discourse">'
    return page(
        f'<div id="main-outlet"><h1>{TITLE}</h1><div class="comments">{posts}</div></div>', head
    )


def phpbb() -> str:
    posts = "".join(
        f'<div class="post bg2" id="p{i}"><div class="postbody"><h3>Re: {TITLE}</h3>'
        f'<p class="author">by user{i}</p>'
        f'<div class="content comment-content">{text}</div></div></div>'
        for i, text in enumerate((ARTICLE, *COMMENTS), 1)
    )
    return page(f'<div id="page-body"><h2>{TITLE}</h2>{posts}</div>')


def labels_of(result, text: str) -> set[str]:
    return {str(lb.verdict) for lb in result.blocks if text in lb.block.text}


def blocks_of(html: str) -> list[Block]:
    return segment(parse(html.encode()))


# --- the rule on the blocks (independent of what the model keeps) ---------------------------


def comment_texts(html: str, url: str | None = None) -> list[str]:
    blocks = blocks_of(html)
    found, reviews = comments.find_sections(blocks, parse(html.encode()), url)
    assert reviews == set()  # not looked for
    return [blocks[i].text for i in sorted(found)]


def test_wordpress_comment_section_is_found_and_the_article_is_not():
    found = comment_texts(wordpress(), "https://example.org/2024/03/council-budget/")
    for text in COMMENTS:
        assert text in found
    assert "Reader 1 March 1, 2024" in found and "Reply" in found
    assert ARTICLE not in found and ARTICLE_2 not in found
    # the headline that the "3 thoughts on <title>" heading repeats is still the article's
    assert TITLE not in found


def test_disqus_thread_is_found():
    found = comment_texts(disqus())
    assert set(COMMENTS) <= set(found)
    assert ARTICLE not in found


def test_microdata_comments_are_found_without_a_comment_class():
    found = comment_texts(microdata())
    assert set(COMMENTS) <= set(found)
    assert ARTICLE not in found and TITLE not in found


def test_re_reply_thread_is_found_from_its_first_reply_on():
    found = comment_texts(replies())
    assert set(COMMENTS) <= set(found)
    assert f"re: {TITLE} 2009-03-01 12:01 reader1" in found
    assert ARTICLE not in found and ARTICLE_2 not in found and TITLE not in found


def test_two_re_lines_are_not_a_thread():
    html = page(f"<p>{ARTICLE}</p><h4>Re: an old question</h4><p>{COMMENT_1}</p><h4>re: it</h4>")
    assert comment_texts(html) == []


def test_forum_threads_keep_their_posts():
    assert comment_texts(discourse()) == []
    # phpBB: "Re:" subjects on every post, found by the URL, or by the markup without one
    assert comment_texts(phpbb(), "https://forum.example.org/viewtopic.php?t=12") == []
    assert comment_texts(phpbb()) == []


def test_forum_is_read_from_url_head_and_markup():
    plain = parse(page("<p>x</p>").encode())
    assert not comments.is_forum(plain, "https://example.org/2024/03/council-budget/")
    assert not comments.is_forum(plain, None)
    for url in (
        "https://meta.discourse.org/t/some-topic/1234",
        "https://www.example.com/threads/why-is-it.5512/",
        "https://forum.example.org/viewtopic.php?f=2&t=9",
        "https://www.reddit.com/r/python/comments/abc123/a_title/",
        "https://news.ycombinator.com/item?id=4242",
        "https://lemmy.ml/post/21018364",
    ):
        assert comments.is_forum(plain, url), url
    og = '<meta property="og:url" content="https://www.example.com/showthread.php?t=1.html">'
    assert comments.is_forum(parse(page("<p>x</p>", og).encode()), None)
    qa = '<script type="application/ld+json">{"@type": "QAPage"}</script>'
    assert comments.is_forum(parse(page("<p>x</p>", qa).encode()), None)


def test_a_page_without_comment_markup_is_left_alone():
    html = page(article(""))
    assert comment_texts(html) == []


# --- the whole pipeline: labels, text, include_comments -------------------------------------


def test_comments_are_left_out_of_the_text():
    for make in (wordpress, named_microdata, replies):
        result = clean_html(make())
        assert ARTICLE in result.text and ARTICLE_2 in result.text, make.__name__
        assert labels_of(result, ARTICLE) == {"good"}
        for text in COMMENTS:
            assert text not in result.text, make.__name__
            assert text not in result.markdown, make.__name__
            assert labels_of(result, text) <= {"comment", "bad"}, make.__name__


def test_kept_comments_are_labelled_comment():
    # On the WordPress page the model itself drops the comments (its class and id cues name
    # them), as on named microdata; on the reply thread it keeps their prose, and the rule
    # labels it.
    for make in (replies,):
        result = clean_html(make())
        for text in COMMENTS:
            assert labels_of(result, text) == {"comment"}, make.__name__
        assert comments.COMMENTS_LABELLED in result.notes
    result = clean_html(replies())
    assert labels_of(result, "re: Council approves") == {"comment"}
    assert labels_of(result, ARTICLE) == {"good"}


def test_a_comment_section_that_no_class_or_id_names_is_left_to_the_model():
    # The rule looks for comment containers only where the walk's class and id cues name
    # comments (its cost, see `label_comments`): bare microdata and a Disqus thread are not.
    for make in (disqus, microdata):
        result = clean_html(make())
        assert comments.COMMENTS_LABELLED not in result.notes, make.__name__
        assert all(labels_of(result, text) <= {"good", "bad"} for text in COMMENTS)


def test_include_comments_brings_them_back():
    for make in (replies,):
        without = clean_html(make())
        with_ = clean_html(make(), include_comments=True)
        # the labels are the same: only the text and the Markdown differ
        assert [lb.verdict for lb in with_.blocks] == [lb.verdict for lb in without.blocks]
        for text in COMMENTS:
            assert text in with_.text and text in with_.markdown, make.__name__
            # and by default they are out of both
            assert text not in without.text and text not in without.markdown, make.__name__
        assert with_.text.index(ARTICLE_2) < with_.text.index(COMMENT_1)
        assert with_.text.startswith(without.text.split("\n")[0])


def test_forum_posts_stay_content():
    for html, url in (
        (discourse(), "https://forum.example.org/t/council-budget/77"),
        (phpbb(), "https://forum.example.org/viewtopic.php?t=12"),
    ):
        result = clean_html(html, url=url)
        assert not any(lb.verdict is Verdict.COMMENT for lb in result.blocks)
        assert comments.COMMENTS_LABELLED not in result.notes
        assert ARTICLE in result.text


def test_a_page_that_is_all_comments_is_kept():
    items = "".join(f'<li class="comment"><p>{text}</p></li>' for text in COMMENTS[:1])
    result = clean_html(page(f'<ol class="comment-list">{items}</ol>'))
    assert not any(lb.verdict is Verdict.COMMENT for lb in result.blocks)


def _text_block(i: int, text: str) -> Block:
    return Block(i, text, "p", "html.body.p", "p", False, len(text), len(text.split()), 0, 1, 7)


@given(
    st.lists(
        st.one_of(
            st.sampled_from(["re: a post", " RE：x", "\u3000回复: y", "Ответ: z", "read more"]),
            st.text(max_size=12),
        ),
        max_size=30,
    )
)
def test_reply_starts_are_the_blocks_the_pattern_matches(texts: list[str]) -> None:
    # The first-character test in front of the regex must never change which blocks start a
    # reply, whatever a text starts with (any blank, any case).
    blocks = [_text_block(i, t) for i, t in enumerate(texts)]
    starts = [i for i, t in enumerate(texts) if comments._REPLY.match(t)]
    expected = list(range(starts[0], len(texts))) if len(starts) >= comments.MIN_REPLIES else []
    # Every test block shares one DOM path, so a thread runs from its first reply to the end.
    assert comments._replies(blocks) == expected


# --- customer reviews: a shop's reader comments ----------------------------------------------

PRODUCT = "Trail running shoe with a grippy outsole"
DESCRIPTION = (
    "This lightweight trail running shoe has a breathable mesh upper, a cushioned midsole made "
    "from recycled foam and a rubber outsole with deep lugs that grip on wet rock and loose "
    "gravel. The heel counter is firm without rubbing, and the laces stay tied on long runs."
)
DETAILS = (
    "Weight 280 grams for a size 9. Drop 6 millimetres. Made in Portugal from materials that are "
    "at least half recycled, and shipped in a box made from recycled cardboard."
)
REVIEW_1 = (
    "I bought these for a mountain race and they were great on the rocky descent, my feet stayed "
    "dry in the mud and I had no blisters at all after thirty kilometres of running."
)
REVIEW_2 = (
    "Comfortable from the first run, but they run half a size small, so order one size up if "
    "you have wide feet like mine. The grip on wet roots is better than my old pair."
)
REVIEW_3 = (
    "After three months of running almost every day the outsole still looks new, which I did not "
    "expect at this price. My husband liked them so much that he ordered a pair for himself."
)
REVIEWS = (REVIEW_1, REVIEW_2, REVIEW_3)


def product_page(reviews: str, head: str = "") -> str:
    return (
        f"<html><head><title>{PRODUCT}</title>{head}</head><body><main>"
        f'<div class="product-info"><h1>{PRODUCT}</h1><p>{DESCRIPTION}</p><p>{DETAILS}</p></div>'
        f"{reviews}</main></body></html>"
    )


def review_section() -> str:
    """A reviews tab: ``#reviews`` around a list of reviews (WooCommerce's own list is also a
    ``commentlist``, which the comment selector finds: not this one)."""
    items = "".join(
        f'<li class="review"><p class="meta"><strong>Buyer {i}</strong> on May {i}, 2024</p>'
        f'<div class="description"><p>{text}</p></div></li>'
        for i, text in enumerate(REVIEWS, 1)
    )
    return (
        f'<div id="reviews" class="woocommerce-Reviews"><h2>3 reviews for {PRODUCT}</h2>'
        f'<ol class="review-items">{items}</ol></div>'
    )


def review_items(count: int = 3) -> str:
    """Amazon-style review items (``data-hook="review"``) inside a ratings widget, no section."""
    items = "".join(
        f'<div data-hook="review" class="a-section"><span class="a-profile-name">Buyer {i}</span>'
        f'<div class="a-row a-spacing-small"><span>{text}</span></div></div>'
        for i, text in enumerate(REVIEWS[:count], 1)
    )
    return f'<div class="ratings-widget">{items}</div>'


def review_texts(html: str, url: str | None = None) -> tuple[list[str], list[str]]:
    blocks = blocks_of(html)
    found, reviews = comments.find_sections(
        blocks, parse(html.encode()), url, look_for_reviews=True
    )
    return [blocks[i].text for i in sorted(found)], [blocks[i].text for i in sorted(reviews)]


def test_a_reviews_section_is_found_and_the_product_is_not():
    found, reviews = review_texts(product_page(review_section()))
    assert found == []
    assert set(REVIEWS) <= set(reviews)
    assert f"3 reviews for {PRODUCT}" in reviews
    assert DESCRIPTION not in reviews and DETAILS not in reviews and PRODUCT not in reviews


def test_review_items_count_from_two_on():
    _, reviews = review_texts(product_page(review_items(3)))
    assert set(REVIEWS) <= set(reviews) and DESCRIPTION not in reviews
    _, reviews = review_texts(product_page(review_items(2)))
    assert set(REVIEWS[:2]) <= set(reviews)
    # one review item alone is not a list of customer reviews
    assert review_texts(product_page(review_items(1))) == ([], [])


def test_an_editorial_review_is_not_a_customer_review():
    # A review site marks its own article up as one schema.org Review, and wraps its articles
    # in a "reviews" class: neither is a reviews section.
    article_review = (
        '<div class="reviews"><article itemscope itemtype="https://schema.org/Review">'
        f'<h1 itemprop="name">{PRODUCT}: our verdict</h1>'
        f'<div itemprop="reviewBody"><p>{DESCRIPTION}</p><p>{DETAILS}</p></div></article></div>'
    )
    html = f"<html><head><title>{PRODUCT}</title></head><body>{article_review}</body></html>"
    assert review_texts(html) == ([], [])


def test_reviews_are_looked_for_only_when_asked():
    html = product_page(review_section())
    blocks = blocks_of(html)
    assert comments.find_sections(blocks, parse(html.encode()), None) == (set(), set())
    found, reviews = comments.find_sections(
        blocks, parse(html.encode()), None, look_for_reviews=True
    )
    assert found == set() and {blocks[i].text for i in reviews} >= set(REVIEWS)


def test_kept_reviews_are_labelled_comment_and_noted():
    for reviews in (review_section(), review_items(3)):
        result = clean_html(product_page(reviews))
        assert DESCRIPTION in result.text and DETAILS in result.text
        for text in REVIEWS:
            assert text not in result.text and text not in result.markdown
        labels = [lb.verdict for lb in result.blocks if lb.block.text in REVIEWS]
        # the model kept some of them (else this page tests nothing), and they are comments now
        assert Verdict.COMMENT in labels
        assert set(labels) <= {Verdict.COMMENT, Verdict.BAD}
        assert result.notes[-2:] == (comments.COMMENTS_LABELLED, comments.REVIEWS_LABELLED)
        with_ = clean_html(product_page(reviews), include_comments=True)
        assert [lb.verdict for lb in with_.blocks] == [lb.verdict for lb in result.blocks]
        kept = [b.block.text for b in result.blocks if b.verdict is Verdict.COMMENT]
        assert all(text in with_.text for text in kept)


def test_reader_comments_alone_get_no_reviews_note():
    result = clean_html(replies())
    assert comments.COMMENTS_LABELLED in result.notes
    assert comments.REVIEWS_LABELLED not in result.notes


def test_reviews_on_a_forum_stay_content():
    html = product_page(review_section())
    blocks = blocks_of(html)
    url = "https://forum.example.org/t/trail-shoes/12"
    assert comments.find_sections(blocks, parse(html.encode()), url, look_for_reviews=True) == (
        set(),
        set(),
    )


def test_reviews_that_no_class_or_id_names_are_left_to_the_model():
    # As for comments, the selector pass runs only where a kept block sits in an element whose
    # class or id names reviews or ratings: here only the data-hook attribute does.
    html = product_page(review_items(3).replace("ratings-widget", "a-box"))
    result = clean_html(html)
    assert comments.REVIEWS_LABELLED not in result.notes
    assert any(lb.verdict is Verdict.GOOD for lb in result.blocks if lb.block.text in REVIEWS)


def _reviews_as(item: str, wrapper: str = '<div class="ratings-widget">{}</div>') -> str:
    """The three reviews, each its own element made by formatting ``item`` with its text."""
    return wrapper.format("".join(item.format(text) for text in REVIEWS))


def test_every_documented_kind_of_review_markup_is_found():
    # Each kind the module names: review items by microdata, Amazon's hook and each widget's
    # class, and reviews sections by their ids and classes around unmarked items.
    plain = "<div class='entry'><p>{}</p></div>"
    markups = {
        "itemprop": _reviews_as('<div itemprop="review" itemscope><p>{}</p></div>'),
        "itemtype": _reviews_as(
            '<div itemscope itemtype="https://schema.org/Review"><p>{}</p></div>'
        ),
        "data-hook": _reviews_as('<div data-hook="review"><p>{}</p></div>'),
        **{
            f"item .{name}": _reviews_as(f'<div class="{name} other"><p>{{}}</p></div>')
            for name in sorted(comments.REVIEW_ITEM_CLASSES)
        },
        **{
            f"section #{name}": _reviews_as(plain, f'<section id="{name}">{{}}</section>')
            for name in sorted(comments.REVIEW_SECTION_IDS)
        },
        **{
            f"section .{name}": _reviews_as(plain, f'<div class="x {name}">{{}}</div>')
            for name in sorted(comments.REVIEW_SECTION_CLASSES)
        },
    }
    for kind, markup in markups.items():
        _, reviews = review_texts(product_page(markup))
        assert set(REVIEWS) <= set(reviews), kind
        assert DESCRIPTION not in reviews, kind
    # and the same unmarked items under a plain wrapper are no reviews
    assert review_texts(product_page(_reviews_as(plain))) == ([], [])


def test_review_names_are_whole_class_words():
    # "review-text-toggle" or "previewText" holds a review class only as a part of a word.
    for name in ("review-text-toggle", "previewText", "product-reviews-summary"):
        html = product_page(_reviews_as(f'<div class="{name}"><p>{{}}</p></div>'))
        assert review_texts(html) == ([], []), name
