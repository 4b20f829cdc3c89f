"""Counts in words that agree with them: "1 input", "4 inputs", "1 task second"."""

from __future__ import annotations

# Nouns whose plural is not the singular plus "s".
_IRREGULAR = {"entry": "entries", "was": "were", "has": "have", "is": "are"}


def plural(noun: str) -> str:
    return _IRREGULAR.get(noun, noun + "s")


def shown(n: float, digits: int = 0) -> str:
    """``n`` as the reports show it: thousands separated, ``digits`` decimals."""
    return f"{n:,.{digits}f}"


def agree(n: float, one: str, many: str, digits: int = 0) -> str:
    """``one`` when ``n`` shows as exactly 1 (at ``digits`` decimals), else ``many``."""
    return one if shown(n, digits) == "1" else many


def count(n: float, noun: str, digits: int = 0) -> str:
    """``n`` as shown and ``noun`` agreeing with what is shown, its last word made plural:
    "1 document", "0 documents", "1 task second" for 1.2 seconds at 0 digits."""
    head, _, last = noun.rpartition(" ")
    word = agree(n, last, plural(last), digits)
    return f"{shown(n, digits)} {head} {word}" if head else f"{shown(n, digits)} {word}"
