"""Kept blocks inside a cookie-consent or privacy dialog are dropped, in every language.

Consent platforms put their banner and their preference centre into the page itself, usually
hidden until a script shows them, outside the article: OneTrust's "Strictly Necessary Cookies"
with a paragraph per purpose, Cookiebot's and CookieYes' category lists, a WordPress plugin's
"Privacy Overview". That is link-free prose, so the model keeps it, thousands of characters on
some pages, and no reference we score against holds it (issue 35: WCXB 0543, 0574, 2973, ...).

A block is dropped when the model kept it and it lies in a *consent container*
(`consent_containers`): an element that the selector pass finds (below), that is not the body,
holds no ``main`` or ``article`` element and is one of:

- the banner or preference centre of a consent platform, named by the ids and classes the
  platforms' own markup uses (`PLATFORM_IDS`, `PLATFORM_CLASSES`: OneTrust, Cookiebot,
  CookieYes / Cookie Law Info, Didomi, Quantcast, TrustArc, Usercentrics, Complianz, Borlabs,
  Osano, iubenda, Termly, consentmanager, ...). The widgets those platforms let a site embed in
  its cookie *policy* (OneTrust's ``#ot-sdk-cookie-policy``, Cookiebot's ``#CookieDeclaration``,
  the plugins' audit tables) are not among them: on a policy page they are the content;
- an element whose id or one of whose classes is a cookie or consent word joined to a word
  for a banner or dialog (`GENERIC_NAME`: ``cookie-banner``, ``cookieConsent``,
  ``gdpr_notice``, ``consent-popup``, ...), the names sites give their own banners;
- a dialog (``role="dialog"``/``"alertdialog"`` or ``aria-modal="true"``) whose accessible name
  (``aria-label``, or the text of the element inside it that ``aria-labelledby`` names) speaks of
  cookies, consent or privacy (`DIALOG_NAME`, in the languages of the dev sets and of the
  platforms' translations): a menu drawn as a dialog is not one.

Containers are found by markup only, never by the word "cookie" in the text, so a page about
cookies (an HTTP library's documentation, a cookie policy) keeps its text. The vocabulary comes
from the platforms' documented markup, not from fitting pages; nothing else is tuned. A block
belongs to a container when its place in the body's text falls within the container's text
(`pipeline.rules.comments.in_containers`). Nothing is dropped when nothing else would stay
kept: a page that is only a consent wall is what it is.

The selector pass runs only where a kept block sits in an element whose class or id names
cookies, consent, privacy or a modal (the segmentation walk's "cookie" cue, which costs nothing
here): 78 of the 1,358 WCXB pages. A dialog that nothing around the kept text names so (iubenda's,
Civic's, a site's unnamed one) is left to the model: looking for dialogs on every page costs
about 0.1 ms a page, for 3 more WCXB pages of 9 and +0.00006 F1. A platform name is recognised on
the element the pass finds: a dialog, or an element under those words. The text matching runs
only where a kept block's text occurs in a container's. Measured in README.md, "Consent dialogs".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from pipeline.html.class_cues import ANCESTOR_CUES
from pipeline.rules.comments import container_texts, in_containers, squeeze
from pipeline.types import Block, block_column

# The page note that says kept blocks of a consent dialog were dropped.
CONSENT_DROPPED = "consent_dropped"

# The outer elements of the consent platforms' banners, preference centres and "revisit consent"
# widgets, as their scripts and plugins write them.
PLATFORM_IDS: frozenset[str] = frozenset(
    (
        # OneTrust (and its older Optanon markup)
        "onetrust-consent-sdk",
        "onetrust-banner-sdk",
        "onetrust-pc-sdk",
        "optanon",
        "optanon-popup-wrapper",
        # Cookiebot
        "CybotCookiebotDialog",
        "CookiebotWidget",
        # CookieYes' older plugin, GDPR Cookie Consent (Cookie Law Info)
        "cookie-law-info-bar",
        "cookie-law-info-again",
        "cliSettingsPopup",
        # Didomi
        "didomi-host",
        "didomi-notice",
        "didomi-popup",
        # Quantcast Choice
        "qc-cmp2-container",
        "qc-cmp2-ui",
        "qcCmpUi",
        # TrustArc (TRUSTe)
        "truste-consent-track",
        "truste-consent-content",
        "consent_blackbar",
        "teconsent",
        # Usercentrics
        "usercentrics-root",
        "usercentrics-cmp-ui",
        "uc-banner",
        # Complianz
        "cmplz-cookiebanner-container",
        "cmplz-manage-consent",
        # Borlabs Cookie
        "BorlabsCookieBox",
        "BorlabsCookieWidget",
        # iubenda, Termly, consentmanager, Axeptio, tarteaucitron, Klaro, cookieconsent (orestbida)
        "iubenda-cs-banner",
        "termly-code-snippet-support",
        "cmpbox",
        "cmpbox2",
        "cmpwrapper",
        "axeptio_overlay",
        "tarteaucitronRoot",
        "klaro",
        "cc-main",
        "cc--main",
        # HubSpot, Cookie-Script, Civic Cookie Control, Evidon / Crownpeak, Ezoic, Moove GDPR,
        # Cookie Notice (Hu-manity), Shopify's customer privacy banner
        "hs-eu-cookie-confirmation",
        "cookiescript_injected",
        "ccc-module",
        "ccc-notify",
        "_evidon_banner",
        "_evidon-barrier-wrapper",
        "ez-cookie-dialog-wrapper",
        "moove_gdpr_cookie_modal",
        "moove_gdpr_cookie_info_bar",
        "cookie-notice",
        "shopify-pc__banner",
        "shopify-pc__prefs",
    )
)
PLATFORM_CLASSES: frozenset[str] = frozenset(
    (
        "optanon-alert-box-wrapper",
        "cky-consent-container",
        "cky-modal",
        "cky-btn-revisit-wrapper",
        "cli-modal",
        "didomi-popup-container",
        "qc-cmp2-container",
        "qc-cmp-ui-container",
        "truste_box_overlay",
        "truste_overlay",
        "cmplz-cookiebanner",
        "_brlbs-box-wrap",
        "osano-cm-window",
        "osano-cm-dialog",
        "fc-consent-root",
        "cookiefirst-root",
        "ch2-dialog",
        "ch2-settings",
        "termsfeed-com---nb",
        "termsfeed-com---pc-dialog",
        "glue-cookie-notification-bar",
        "iubenda-cs-container",
        "cky-preference-center",
        "sqs-cookie-banner-v2",
    )
)

# A site's own banner: a cookie or consent word joined (or not) by - or _ to a word for a banner
# or dialog, in either order, any case ("cookie-banner", "CookieConsent", "gdpr_notice",
# "consent-popup", "banner-cookies").
_SUBJECT = r"(?:cookies?|consent|gdpr|rgpd|dsgvo)"
_WIDGET = (
    r"(?:banner|bar|notice|notification|popup|pop-up|modal|dialog|overlay|wall|law|consent|"
    r"message|alert|layer|hint|disclaimer)s?"
)
GENERIC_NAME = re.compile(
    rf"^(?:{_SUBJECT}[-_]?{_WIDGET}|{_WIDGET}[-_]?{_SUBJECT})$", re.IGNORECASE
)
# What a dialog's accessible name says when it is the consent dialog.
DIALOG_NAME = re.compile(
    r"cookie|consent|gdpr|rgpd|dsgvo|privacy|datenschutz|einwilligung|zustimmung|"
    r"confidentialit|consentement|privacidad|privacidade|consentimiento|consenso|riservatezza|"
    r"toestemming|prywatno|zgod|конфиденциальн|согласи|куки|隐私|隱私|プライバシー|クッキー|"
    r"쿠키|개인정보",
    re.IGNORECASE,
)
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
# The selector pass finds every element that one of the three rules could take; the rules then
# decide in Python, on the few elements found. Each selector in a pass costs 0.02-0.05 ms a page.
# Case-sensitive "ookie" and "onsent", a fifth cheaper than a case-insensitive match, take
# "cookie", "Cookie" ("CybotCookiebotDialog") and "consent" alike. Each platform name among
# `PLATFORM_IDS` and `PLATFORM_CLASSES` that no substring takes would be one more selector (40 of
# them cost 1.4 ms a page): such an element is recognised when the pass finds it, as a dialog.
SELECTOR = ", ".join(
    (
        '[role$="dialog"]',
        '[id*="ookie"], [id*="onsent"], [class*="ookie"], [class*="onsent"]',
        '[id*="gdpr" i], [class*="gdpr" i], [aria-modal="true"]',
    )
)
_COOKIE_CUE = 1 << next(i for i, (name, _) in enumerate(ANCESTOR_CUES) if name == "cookie")
_NOT_INSIDE = "main, article, [role=main]"


def _named(value: str, dialog: Any) -> str:
    """The text of the elements inside ``dialog`` whose ids ``value`` lists
    (``aria-labelledby``); a label elsewhere in the page is not looked for, which would cost a
    pass over the whole tree per dialog."""
    parts = []
    for ident in value.split()[:4]:
        node = dialog.css_first(f'[id="{ident}"]') if '"' not in ident else None
        if node is not None:
            parts.append(node.text(deep=True) or "")
    return " ".join(parts)


def is_consent_container(node: Any) -> bool:
    """Whether ``node`` is a consent container by its markup (see the module's docstring),
    before the structural checks."""
    attrs = node.attributes
    ident = attrs.get("id") or ""
    if ident in PLATFORM_IDS:
        return True
    classes = (attrs.get("class") or "").split()
    if not PLATFORM_CLASSES.isdisjoint(classes):
        return True
    if any(GENERIC_NAME.match(name) for name in (ident, *classes) if name):
        return True
    if attrs.get("role") in _DIALOG_ROLES or attrs.get("aria-modal") == "true":
        name = attrs.get("aria-label") or ""
        if DIALOG_NAME.search(name) is not None:
            return True
        labelled = attrs.get("aria-labelledby")
        return bool(labelled) and DIALOG_NAME.search(_named(labelled, node)) is not None
    return False


def consent_containers(tree: Any) -> list[Any]:
    """The page's outermost consent containers, in document order."""
    root = tree.body if tree is not None else None
    if root is None:
        return []
    return outermost(
        root.css(SELECTOR),
        lambda node: node.tag not in ("body", "html") and is_consent_container(node),
    )


def outermost(nodes: Iterable[Any], accept: Callable[[Any], bool]) -> list[Any]:
    """The outermost of ``nodes`` (a selector pass's elements, in document order, a node twice
    when it matches two selectors) that ``accept`` takes and that hold no ``main`` or
    ``article``, in document order: the containers whose text `in_containers` places blocks in.
    `pipeline.rules.closed_dialogs` and `pipeline.rules.facet_filters` share it."""
    found: list[Any] = []
    taken: set[int] = set()
    for node in nodes:
        if node.mem_id in taken:
            continue
        # Before ``accept``, which may read the node's whole text: a selector pass finds a
        # container's nested elements too (a filter panel's hundreds of ``facets__*``).
        # Document order: an outer container came first.
        if taken and under_any(node, taken):
            continue
        if not accept(node) or node.css_first(_NOT_INSIDE) is not None:
            continue
        taken.add(node.mem_id)
        found.append(node)
    return found


def under_any(node: Any, ids: set[int], stop: Any = None) -> bool:
    """Whether an element above ``node`` (up to, not including, ``stop``; the root when None)
    has its ``mem_id`` in ``ids``. `pipeline.rules.facet_filters` shares it."""
    end = None if stop is None else stop.mem_id
    parent = node.parent
    while parent is not None and parent.mem_id != end:
        if parent.mem_id in ids:
            return True
        parent = parent.parent
    return False


def consent_blocks(blocks: Sequence[Block], tree: Any) -> list[int]:
    """The indexes of the blocks that lie in the page's consent containers."""
    texts = container_texts(consent_containers(tree))
    if not texts:
        return []
    return in_containers(blocks, tree, texts, unique=True)


def could_be_inside(blocks: Sequence[Block], kept: list[int], texts: list[str]) -> bool:
    """Whether the text of one of the ``kept`` blocks occurs in a container's text: when none
    does, no kept block is inside one, and the body's text need not be built and searched."""
    for i in kept:
        text = squeeze(blocks[i].text)
        if text and any(text in container for container in texts):
            return True
    return False


def guard(
    keep: np.ndarray, blocks: Sequence[Block], tree: Any, fields: Sequence[Sequence] | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks of the page's consent dialogs, and the page note when it
    dropped any; unchanged when there is no ``tree`` or nothing else would stay kept.
    ``fields``: the blocks' `pipeline.types.block_fields`, when at hand."""
    return drop_inside(keep, blocks, tree, fields, consent_containers, CONSENT_DROPPED)


def drop_inside(
    keep: np.ndarray,
    blocks: Sequence[Block],
    tree: Any,
    fields: Sequence[Sequence] | None,
    containers: Callable[[Any], list[Any]],
    note: str,
    cue: int | None = _COOKIE_CUE,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks inside the ``containers`` of the parsed page ``tree``,
    and ``note`` when it dropped any; the tree is searched only where a kept block sits under
    a class or id that the ``cue`` bit of `Block.ancestor_cues` stands for (by default one that
    names cookies, consent, privacy or a modal: see the module's docstring; None: the caller has
    decided that already). `pipeline.rules.closed_dialogs` and `pipeline.rules.facet_filters`
    share it."""
    if tree is None or not keep.any():
        return keep, ()
    kept = np.flatnonzero(keep).tolist()
    if cue is not None:
        cues = block_column(blocks, "ancestor_cues", fields)
        # Read in C (map over the kept blocks' cue bits): a generator costs three times as much.
        if not any(map(cue.__and__, map(cues.__getitem__, kept))):
            return keep, ()
    texts = container_texts(containers(tree))
    if not texts or not could_be_inside(blocks, kept, texts):
        return keep, ()
    inside = [i for i in in_containers(blocks, tree, texts, unique=True) if keep[i]]
    if not inside:
        return keep, ()
    out = keep.copy()
    out[inside] = False
    if not out.any():
        return keep, ()
    return out, (note,)
