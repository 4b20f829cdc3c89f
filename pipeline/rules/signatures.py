"""A forum post's signature is not the post: kept blocks in one are dropped, on forum threads.

Forum software appends a member's signature to every post they write: a motto, the hardware
they own, their titles ("⭐ Community Leader ⭐ SQSP Expert ⭐"), "Buying me a coffee is a generous
way to say thanks", the same lines under each of their posts. It is short link-poor prose inside the
post, so the model keeps it, and the forum references we score against leave it out (WCXB's
forum threads on phpBB, MyBB, vBulletin, Invision and FluxBB boards).

A block is dropped when the model kept it, the page is a forum thread by its address or its head
(`pipeline.rules.comments.forum_by_address`: the record's URL or the canonical address has a
forum's shape, or the head's JSON-LD declares a discussion; no pass over the page), and it lies in
a signature (`SIGNATURE_CLASSES`: phpBB's, MyBB's and most themes' ``signature``, vBulletin's
``signaturecontainer``, XenForo's ``message-signature``, Invision's ``ipsSignature``, FluxBB's
``postsignature``, ``post-signature``; or Invision's ``data-role="memberSignature"``; placed in
the body's text as comments are, `pipeline.rules.comments.in_containers`). Off a forum the class
means other things (an API's function signature, an e-mail signature's how-to), so nothing is
looked for there. Nothing is dropped when nothing else would stay kept. Only the cleaners that ask
for it (``drops_signatures``: the default one) run it, after the comment labels
(`pipeline.clean.clean_decoded`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.html.metadata import HeadFacts
from pipeline.rules.comments import container_texts, forum_by_address, in_containers
from pipeline.rules.relabel import relabel_kept
from pipeline.types import LabeledBlock, Verdict

# The page note that says kept blocks of signatures were dropped.
SIGNATURES_DROPPED = "signatures_dropped"

# The signature's class in each forum software's markup, and Invision's data-role.
SIGNATURE_CLASSES = frozenset(
    (
        "signature",
        "signaturecontainer",
        "message-signature",
        "ipsSignature",
        "postsignature",
        "post-signature",
    )
)
SIGNATURE_ROLE = "memberSignature"
# Every element that may be one, in one selector pass (each holds "ignature"), sorted by
# `_is_signature`: a pass over the exact names cost about twice as much.
_CANDIDATES = f'[class*="ignature"], [data-role="{SIGNATURE_ROLE}"]'


def _is_signature(attrs: dict[str, str | None]) -> bool:
    return attrs.get("data-role") == SIGNATURE_ROLE or not SIGNATURE_CLASSES.isdisjoint(
        (attrs.get("class") or "").split()
    )


def drop(
    labeled: Sequence[LabeledBlock], tree: Any, url: str | None, head: HeadFacts
) -> tuple[list[LabeledBlock], tuple[str, ...]]:
    """``labeled`` with the kept blocks of the posts' signatures dropped, and the page note when
    any were (see the module's docstring). ``tree``: the parsed page; ``head``: what its head
    says (`pipeline.html.metadata.read_head`)."""
    good = Verdict.GOOD
    if (
        tree is None
        or tree.body is None
        or not forum_by_address((url, head.metadata.canonical_url), head.schema_types)
        or not any(lb.verdict is good for lb in labeled)
    ):
        return list(labeled), ()
    nodes = [node for node in tree.body.css(_CANDIDATES) if _is_signature(node.attributes)]
    containers = container_texts(nodes)
    if not containers:
        return list(labeled), ()
    blocks = [lb.block for lb in labeled]
    hit = {i for i in in_containers(blocks, tree, containers) if labeled[i].verdict is good}
    out = relabel_kept(labeled, hit, Verdict.BAD)
    if out is None:
        return list(labeled), ()
    return out, (SIGNATURES_DROPPED,)
