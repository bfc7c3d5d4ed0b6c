"""The report's figures as plain data (:class:`LinePlot`, :class:`BarPlot`, :class:`StackedBarPlot`) and
their rendering to PNG bytes.

matplotlib is imported inside :func:`render_png` only (it is heavy and ``import bench`` must stay light).
Rendering is deterministic: the object-oriented API with the Agg canvas (no pyplot global state), matplotlib's
built-in defaults instead of the user's matplotlibrc, and PNG metadata without the ``Software`` entry, so the
same plot gives the same bytes on the same installation.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Union

# Colour per condition, stable across figures; other labels take the remaining colours in sorted order.
CONDITION_COLOURS = {"full": "#1f77b4", "count-only": "#ff7f0e", "resample": "#2ca02c"}
SPARE_COLOURS = ("#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
CLASS_COLOURS = {"CONVERGED": "#2ca02c", "STALLED": "#d62728", "OSCILLATING": "#ff7f0e", "EXHAUSTED": "#7f7f7f"}
PNG_METADATA = {"Software": None}
DPI = 100
ZERO_MARGIN = 0.03  # room below 0 on a rate axis, as a share of its top


@dataclass(frozen=True)
class Series:
    label: str
    values: tuple[float, ...]  # y at x = 1..len(values)
    colour_key: str  # series with the same key share a colour (observed vs predicted of one condition)
    dashed: bool = False


@dataclass(frozen=True)
class LinePlot:
    filename: str
    title: str
    xlabel: str
    ylabel: str
    series: tuple[Series, ...]


@dataclass(frozen=True)
class BarPlot:
    filename: str
    title: str
    ylabel: str
    categories: tuple[str, ...]
    values: tuple[float | None, ...]  # None: nothing scored in the category (no bar, no point)
    lows: tuple[float, ...]
    highs: tuple[float, ...]


@dataclass(frozen=True)
class StackedBarPlot:
    filename: str
    title: str
    ylabel: str
    categories: tuple[str, ...]
    segments: tuple[tuple[str, tuple[int, ...]], ...]  # (label, count per category), bottom to top


Plot = Union[LinePlot, BarPlot, StackedBarPlot]


def colour_for(key: str, keys: tuple[str, ...]) -> str:
    if key in CONDITION_COLOURS:
        return CONDITION_COLOURS[key]
    others = sorted(k for k in set(keys) if k not in CONDITION_COLOURS)
    return SPARE_COLOURS[others.index(key) % len(SPARE_COLOURS)] if key in others else SPARE_COLOURS[0]


def render_png(plot: Plot) -> bytes:
    """The plot as PNG bytes (deterministic, see module docstring)."""
    import matplotlib

    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        figure = draw(plot)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI, metadata=PNG_METADATA)
        return buffer.getvalue()


def draw(plot: Plot):
    """The plot as a matplotlib Figure on an Agg canvas (with the rc parameters in force: ``render_png`` resets
    them first)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 4.2), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    if isinstance(plot, LinePlot):
        _draw_lines(axes, plot)
    elif isinstance(plot, BarPlot):
        _draw_bars(axes, plot)
    elif isinstance(plot, StackedBarPlot):
        _draw_stacked(axes, plot)
    else:
        raise TypeError(f"unknown plot {plot!r}")
    axes.set_title(plot.title)
    axes.grid(True, axis="y", alpha=0.3)
    figure.tight_layout()
    return figure


def _draw_lines(axes, plot: LinePlot) -> None:
    keys = tuple(series.colour_key for series in plot.series)
    longest = max((len(series.values) for series in plot.series), default=1)
    for series in plot.series:
        xs = list(range(1, len(series.values) + 1))
        axes.plot(
            xs,
            list(series.values),
            label=series.label,
            color=colour_for(series.colour_key, keys),
            linestyle="--" if series.dashed else "-",
            marker="" if series.dashed else "o",
            linewidth=1.8,
            clip_on=False,  # a point on an axis limit is drawn whole
            zorder=3,  # above the axes' frame: a rate of 0 lies on the bottom spine
        )
    axes.set_xlabel(plot.xlabel)
    axes.set_ylabel(plot.ylabel)
    axes.set_xticks(list(range(1, longest + 1)))
    axes.set_xlim(0.8, longest + 0.2)
    top = line_top(plot)
    axes.set_ylim(-ZERO_MARGIN * top, top)  # a little room below 0, so a rate of 0 is a visible point
    if plot.series:  # beside the axes, never over a line
        axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")


def line_top(plot) -> float:
    """The y axis of a rate plot: 0–1, or 0 to a little above the highest value when every value is small, so a
    curve under 0.2 is not flattened against the bottom."""
    highest = max((v for series in plot.series for v in series.values), default=0.0)
    if highest >= 0.5:
        return 1.02
    return max(0.05, round(highest * 1.25 + 0.005, 2))


def _draw_bars(axes, plot: BarPlot) -> None:
    """A bar, its interval and a point per category with something scored: a rate of 0 has no bar to see, so
    the point marks it; a category with nothing scored has neither."""
    positions = list(range(len(plot.categories)))
    axes.bar(positions, [0.0 if value is None else value for value in plot.values], color="#1f77b4", alpha=0.85)
    scored = [(x, value, low, high) for x, value, low, high in zip(positions, plot.values, plot.lows, plot.highs)
              if value is not None]
    if scored:
        xs, ys = [x for x, *_ in scored], [value for _, value, _, _ in scored]
        below = [max(0.0, value - low) for _, value, low, _ in scored]
        above = [max(0.0, high - value) for _, value, _, high in scored]
        axes.errorbar(xs, ys, yerr=[below, above], fmt="none", ecolor="#1b1f24", capsize=4)
        axes.plot(xs, ys, linestyle="none", marker="o", markersize=5, color="#1b1f24", clip_on=False, zorder=3)
    axes.set_xticks(positions)
    axes.set_xticklabels(list(plot.categories), rotation=20, ha="right")
    axes.set_ylabel(plot.ylabel)
    axes.set_ylim(-ZERO_MARGIN, 1.02)


def _draw_stacked(axes, plot: StackedBarPlot) -> None:
    positions = list(range(len(plot.categories)))
    bottoms = [0] * len(positions)
    for label, counts in plot.segments:
        axes.bar(positions, list(counts), bottom=list(bottoms), label=label, color=CLASS_COLOURS.get(label, "#9467bd"))
        bottoms = [bottom + count for bottom, count in zip(bottoms, counts)]
    axes.set_xticks(positions)
    axes.set_xticklabels(list(plot.categories))
    axes.set_ylabel(plot.ylabel)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
