"""Counts of what happened to every record, per WARC and merged over a run.

Every record a reader yields ends as exactly one of: a document, a rejection (a page-type record
that produced no document, with a reason) or a skip (a record type that never holds a page:
request, metadata, warcinfo, ...). So ``records == docs + rejects + skipped`` for every report;
the job checks it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Stats:
    """Mutable while one task counts; merged with ``+`` on the client."""

    records: int = 0
    docs: int = 0
    rejects: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    issues: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)
    body_bytes: int = 0
    text_chars: int = 0
    # Documents whose kept content holds code, math or tables (`CleanResult.structure`).
    structure: Counter[str] = field(default_factory=Counter)
    # Documents by the kind of page they are (`CleanResult.page_type`).
    page_types: Counter[str] = field(default_factory=Counter)

    @property
    def n_rejects(self) -> int:
        return sum(self.rejects.values())

    @property
    def n_skipped(self) -> int:
        return sum(self.skipped.values())

    @property
    def balanced(self) -> bool:
        return self.records == self.docs + self.n_rejects + self.n_skipped

    def __add__(self, other: Stats) -> Stats:
        return Stats(
            records=self.records + other.records,
            docs=self.docs + other.docs,
            rejects=self.rejects + other.rejects,
            skipped=self.skipped + other.skipped,
            issues=self.issues + other.issues,
            languages=self.languages + other.languages,
            body_bytes=self.body_bytes + other.body_bytes,
            text_chars=self.text_chars + other.text_chars,
            structure=self.structure + other.structure,
            page_types=self.page_types + other.page_types,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "docs": self.docs,
            "rejects": dict(sorted(self.rejects.items())),
            "skipped": dict(sorted(self.skipped.items())),
            "issues": dict(sorted(self.issues.items())),
            "languages": dict(sorted(self.languages.items())),
            "body_bytes": self.body_bytes,
            "text_chars": self.text_chars,
            "structure": dict(sorted(self.structure.items())),
            "page_types": dict(sorted(self.page_types.items())),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Stats:
        return cls(
            records=int(data["records"]),
            docs=int(data["docs"]),
            rejects=Counter(data.get("rejects", {})),
            skipped=Counter(data.get("skipped", {})),
            issues=Counter(data.get("issues", {})),
            languages=Counter(data.get("languages", {})),
            body_bytes=int(data.get("body_bytes", 0)),
            text_chars=int(data.get("text_chars", 0)),
            structure=Counter(data.get("structure", {})),
            page_types=Counter(data.get("page_types", {})),
        )


@dataclass(frozen=True, slots=True)
class WarcReport:
    """What one task did with one input: its counts, the files it wrote and how long it took."""

    warc_path: str
    stem: str
    stats: Stats
    files: tuple[str, ...]
    seconds: float
    input_bytes: int = 0
    issues: tuple[dict[str, Any], ...] = ()  # the first reader issues, in file order
    # The job's --limit when it stopped the input there (None: the input was read to its end).
    limit: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "warc_path": self.warc_path,
            "stem": self.stem,
            "seconds": round(self.seconds, 3),
            "input_bytes": self.input_bytes,
            "files": list(self.files),
            **self.stats.to_dict(),
            "issue_log": list(self.issues),
        }
        if self.limit is not None:
            out["limit"] = self.limit
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WarcReport:
        return cls(
            warc_path=data["warc_path"],
            stem=data["stem"],
            stats=Stats.from_dict(data),
            files=tuple(data.get("files", ())),
            seconds=float(data.get("seconds", 0.0)),
            input_bytes=int(data.get("input_bytes", 0)),
            issues=tuple(data.get("issue_log", ())),
            limit=None if data.get("limit") is None else int(data["limit"]),
        )
