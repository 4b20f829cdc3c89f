"""Tag names the pre-parse guard's scans treat specially, as lower-case UTF-8 bytes.

One place for both implementations of those scans: guard.py's Python and numpy code and the C
loops of markup_scan.pyx, which must give the same counts.
"""

from __future__ import annotations

# Start tags that never hold content, so never deepen the stack of open elements.
VOID_NAMES = frozenset(
    b"area base br col embed hr img input link meta param source track wbr keygen".split()
)
# Where inline SVG and MathML start: inside them a self-closed start tag opens nothing.
FOREIGN_ROOTS = frozenset((b"svg", b"math"))
# Where foreign content holds HTML again (the parser's integration points; annotation-xml only
# with some encodings, always here, which errs towards deeper) ...
INTEGRATION = frozenset(b"foreignobject desc title mi mo mn ms mtext annotation-xml".split())
# ... and the HTML start tags that end foreign content wherever they appear in it (the tree
# builder's list; "font" only with some attributes, always here). "</br>" and "</p>" too.
BREAKOUT = frozenset(
    b"b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i "
    b"img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u "
    b"ul var font".split()
)
