"""The run report's charts as inline SVG, drawn by matplotlib (the optional ``report`` extra).

Without matplotlib, `available` is False and the report shows its tables only. Figures are
built as `matplotlib.figure.Figure` objects with the SVG canvas directly, never through pyplot,
so no global figure state is created or leaked, and rcParams change only inside `rc_context`.
The SVG is deterministic: a fixed ``svg.hashsalt`` names clip paths, the metadata carries no
date, and text is kept as text (``svg.fonttype: none``), which also keeps the files small.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pipeline.report.collect import Histogram, InputSummary, rate_over_time
from pipeline.report.markup import Safe
from pipeline.report.plural import count

INSTALL_HINT = "pip install 'warcclean[report]'"
_RC = {
    "svg.hashsalt": "warcclean-report",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#8a93a3",
    "axes.labelcolor": "#3b4252",
    "xtick.color": "#3b4252",
    "ytick.color": "#3b4252",
    "axes.titlesize": 10.0,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
}
BLUE, ORANGE, GREY = "#2f5fb3", "#d9822b", "#8a93a3"
_WIDTH = 6.4


def available() -> bool:
    """Whether matplotlib can be imported (the ``report`` extra is installed)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def load() -> None:
    """Import what drawing a chart needs (matplotlib's figure, its SVG canvas, its font list),
    so that a thread can do it while the job runs (`pipeline.report.run_report.warm_up`)."""
    import matplotlib.figure  # noqa: F401
    from matplotlib.backends import backend_svg  # noqa: F401


def _figure(height: float, *, left: float = 0.6, bottom: float = 0.5) -> Any:
    """A figure with fixed margins, in inches (``left``: room for the y tick labels).

    Fixed rather than matplotlib's constrained layout, which draws every figure twice to
    measure it: that was most of the report's time in a job (see bench/report.py).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(_WIDTH, height))
    fig.subplots_adjust(
        left=left / _WIDTH,
        right=1 - 0.25 / _WIDTH,
        bottom=bottom / height,
        top=1 - 0.3 / height,
    )
    return fig


def _label_room(labels: Sequence[str]) -> float:
    """Inches the longest y tick label needs at the report's font size (an estimate)."""
    return 0.3 + 0.07 * max((len(x) for x in labels), default=4)


_ID = re.compile(r'\bid="([^"]+)"')


def to_svg(fig: Any, prefix: str) -> Safe:
    """``fig`` as an ``<svg>`` element to inline in HTML.

    Several figures share one HTML document, hence one id space: every id matplotlib wrote is
    prefixed with ``prefix``, and the XML declaration, DOCTYPE and metadata are dropped.
    """
    from matplotlib import rc_context
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    FigureCanvasSVG(fig)
    buf = io.StringIO()
    with rc_context(_RC):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Type": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    ids = set(_ID.findall(svg))
    if ids:
        svg = re.sub(
            r'(\bid="|url\(#|xlink:href="#|\bhref="#)([^")]+)',
            lambda m: m.group(1) + (prefix + m.group(2) if m.group(2) in ids else m.group(2)),
            svg,
        )
    return Safe(svg)


def _styled(build: Any) -> Any:
    """Run ``build`` (which creates a figure) with the report's rcParams, restored after."""
    from matplotlib import rc_context

    with rc_context(_RC):
        return build()


def _truncate(label: str, width: int = 42) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def bar_chart(
    items: Sequence[tuple[str, int]],
    title: str,
    xlabel: str,
    prefix: str,
    colors: Sequence[str] | None = None,
) -> Safe:
    """Horizontal bars, largest first (labels may be page-derived: text, never markup)."""

    def build() -> Any:
        labels = [_truncate(k) for k, _ in items][::-1]
        fig = _figure(0.9 + 0.24 * max(len(items), 1), left=_label_room(labels))
        ax = fig.add_subplot()
        values = [v for _, v in items][::-1]
        bar_colors = list(colors)[::-1] if colors else BLUE
        bars = ax.barh(range(len(items)), values, color=bar_colors, height=0.7)
        ax.set_yticks(range(len(items)), labels)
        ax.bar_label(bars, labels=[f"{v:,}" for v in values], padding=3, fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        ax.margins(x=0.12)
        return fig

    return to_svg(_styled(build), prefix)


def histogram_chart(hist: Histogram, title: str, xlabel: str, prefix: str, *, log_x: bool) -> Safe:
    """A pre-binned histogram (the bins come from `pipeline.report.collect`)."""

    def build() -> Any:
        fig = _figure(2.6)
        ax = fig.add_subplot()
        counts = list(hist.counts)
        edges = list(hist.edges)
        if hist.open_ended:
            edges = [*edges, edges[-1] * 10**0.25]
        nonzero = [i for i, c in enumerate(counts) if c]
        if nonzero:
            lo, hi = nonzero[0], nonzero[-1] + 1
        else:
            lo, hi = 0, len(counts)
        if log_x:
            lo = max(lo, 1)  # the [0, 1) bin has no place on a log axis (documents have text)
            hi = max(hi, lo + 1)
        if log_x:
            # Drawn on log10 of the edges with a linear axis, ticks at the powers of ten: the
            # same picture as a log axis at a third of its cost (its locators and minor ticks).
            import math

            xs = [math.log10(e) for e in edges[lo : hi + 1]]
            ax.stairs(counts[lo:hi], xs, fill=True, color=BLUE, alpha=0.8)
            ticks = list(range(math.ceil(xs[0]), math.floor(xs[-1]) + 1))
            ax.set_xticks(ticks, [_power_of_ten(t) for t in ticks])
            ax.set_xlim(xs[0], xs[-1])
        else:
            ax.stairs(counts[lo:hi], edges[lo : hi + 1], fill=True, color=BLUE, alpha=0.8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("documents")
        ax.set_title(title)
        return fig

    return to_svg(_styled(build), prefix)


def _power_of_ten(exponent: int) -> str:
    return ("1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M")[exponent]


def throughput_per_input_chart(inputs: Sequence[InputSummary], prefix: str) -> Safe:
    """Records per second of each input: one bar each for a few inputs, a histogram for many."""
    rates = [(i.warc_path.rpartition("/")[2], i.records_per_second or 0.0) for i in inputs]

    def build() -> Any:
        if len(rates) <= 30:
            ordered = sorted(rates, key=lambda r: r[1])
            labels = [_truncate(n, 36) for n, _ in ordered]
            fig = _figure(0.9 + 0.22 * max(len(rates), 1), left=_label_room(labels))
            ax = fig.add_subplot()
            ax.barh(range(len(ordered)), [r for _, r in ordered], color=BLUE, height=0.7)
            ax.set_yticks(range(len(ordered)), labels)
            ax.set_xlabel("records per second of the input's task")
        else:
            fig = _figure(2.6)
            ax = fig.add_subplot()
            ax.hist([r for _, r in rates], bins=30, color=BLUE, alpha=0.8)
            ax.set_xlabel("records per second of one input")
            ax.set_ylabel("inputs")
        ax.set_title("Throughput per input")
        return fig

    return to_svg(_styled(build), prefix)


def throughput_over_time_chart(
    sessions: Sequence[Sequence[InputSummary]], prefix: str, max_sessions: int = 6
) -> Safe:
    """Records per second against minutes since each session's start, one line per session."""
    shown = list(sessions)[-max_sessions:]

    series = [rate_over_time(session) for session in shown]
    longest = max(edges[-1] for edges, _ in series)
    # The unit that keeps the axis' numbers readable: a test run lasts seconds, a crawl days.
    unit, scale = ("seconds", 1.0) if longest < 180 else ("minutes", 60.0)
    if longest >= 3 * 3600:
        unit, scale = "hours", 3600.0

    def build() -> Any:
        fig = _figure(2.6)
        ax = fig.add_subplot()
        for k, (session, (edges, rates)) in enumerate(zip(shown, series, strict=True)):
            start: datetime = min(i.started_at for i in session if i.started_at is not None)
            label = f"{start:%Y-%m-%d %H:%M} UTC, {count(len(session), 'input')}"
            ax.stairs(
                rates,
                [e / scale for e in edges],
                color=BLUE if k == len(shown) - 1 else GREY,
                linewidth=1.6,
                label=label,
            )
        ax.set_xlabel(f"{unit} since the session started")
        ax.set_ylabel("records per second")
        ax.set_ylim(bottom=0)
        ax.set_title("Throughput over time")
        ax.legend(loc="lower right", fontsize=7, frameon=False)
        return fig

    return to_svg(_styled(build), prefix)
