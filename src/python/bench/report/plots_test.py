from __future__ import annotations

import subprocess
import sys
import zlib

import pytest

from bench.report.plots import BarPlot, LinePlot, Series, StackedBarPlot, colour_for, render_png

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

LINE = LinePlot(
    "curve.png",
    "Iterations to converge",
    "turn",
    "P(converged by turn)",
    (Series("full", (0.2, 0.4, 0.5), "full"), Series("full Markov", (0.2, 0.38, 0.52), "full", dashed=True)),
)
BAR = BarPlot("bar.png", "Solve rate", "rate", ("attrs", "click"), (0.5, 0.25), (0.3, 0.1), (0.7, 0.5))
STACKED = StackedBarPlot(
    "classes.png", "Classes", "runs", ("full", "count-only"), (("CONVERGED", (3, 2)), ("STALLED", (1, 2)))
)


def chunk_types(png: bytes) -> list[bytes]:
    assert png.startswith(PNG_SIGNATURE)
    types, offset = [], len(PNG_SIGNATURE)
    while offset < len(png):
        length = int.from_bytes(png[offset : offset + 4], "big")
        kind = png[offset + 4 : offset + 8]
        body = png[offset + 8 : offset + 8 + length]
        assert zlib.crc32(kind + body) == int.from_bytes(png[offset + 8 + length : offset + 12 + length], "big")
        types.append(kind)
        offset += 12 + length
    return types


@pytest.mark.parametrize("plot", [LINE, BAR, STACKED], ids=["line", "bar", "stacked"])
def test_every_plot_kind_renders_a_valid_png_without_software_or_time_chunks(plot):
    png = render_png(plot)
    types = chunk_types(png)
    assert types[0] == b"IHDR" and types[-1] == b"IEND"
    assert b"tIME" not in types
    assert b"Software" not in png and b"matplotlib" not in png


def test_rendering_twice_gives_identical_bytes():
    # Checked first by hand: matplotlib's Agg PNG output repeats byte for byte once "Software" is dropped.
    assert render_png(LINE) == render_png(LINE)
    assert render_png(STACKED) == render_png(STACKED)


def test_rendering_in_another_process_gives_identical_bytes():
    script = (
        "import sys, hashlib\n"
        "from bench.report.plots import LinePlot, Series, render_png\n"
        f"plot = {LINE!r}\n"
        "sys.stdout.write(hashlib.sha256(render_png(plot)).hexdigest())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=_env())
    assert done.returncode == 0, done.stderr
    import hashlib

    assert done.stdout == hashlib.sha256(render_png(LINE)).hexdigest()


def test_rendering_ignores_the_callers_rc_params():
    import matplotlib

    with matplotlib.rc_context({"lines.linewidth": 9.0, "font.size": 22, "axes.facecolor": "black"}):
        changed = render_png(LINE)
    assert changed == render_png(LINE)


def test_conditions_keep_their_colour_and_others_get_spare_ones():
    keys = ("full", "zeta", "alpha")
    assert colour_for("full", keys) == "#1f77b4"
    assert colour_for("alpha", keys) != colour_for("zeta", keys)


def test_importing_the_report_builder_does_not_import_matplotlib():
    script = "import sys, bench.report.build, bench.cli.report\nprint('matplotlib' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def _env() -> dict[str, str]:
    from bench.testing.support import child_env

    import bench.cli.report  # noqa: F401  (the child imports it; this ships it to the test runner)

    return child_env()


def test_rate_axis_fits_small_values_and_keeps_zero_to_one_otherwise():
    from bench.report.plots import LinePlot, Series, line_top

    def plot(*values):
        return LinePlot("x.png", "t", "turn", "rate", (Series("full", tuple(values), "full"),))

    assert line_top(plot(0.02, 0.07, 0.1)) == 0.13
    assert line_top(plot(0.0, 0.0)) == 0.05
    assert line_top(plot(0.2, 0.6)) == 1.02


def _drawn(plot):
    import matplotlib

    from bench.report import plots

    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        (axes,) = plots.draw(plot).axes
    return axes


def _visible(axes, line) -> bool:
    """Every point of ``line`` lies strictly inside the y range, or is not clipped by the axes."""
    low, high = axes.get_ylim()
    return (not line.get_clip_on()) or all(low < y < high for y in line.get_ydata())


def test_a_rate_of_zero_is_a_visible_point_of_its_curve():
    axes = _drawn(LinePlot("z.png", "t", "turn", "P(converged by turn)",
                           (Series("count-only", (0.0, 0.0, 0.0), "count-only"),
                            Series("full", (0.0, 0.1, 0.2), "full"))))
    marked = [line for line in axes.get_lines() if line.get_marker() == "o"]
    assert [list(line.get_ydata()) for line in marked] == [[0.0, 0.0, 0.0], [0.0, 0.1, 0.2]]
    assert axes.get_ylim()[0] < 0.0  # the bottom spine is not at 0, where the points lie
    assert all(_visible(axes, line) and line.get_zorder() > 2.5 for line in marked)  # above the frame


def test_a_library_with_a_rate_of_zero_gets_a_point_and_one_with_nothing_scored_does_not():
    bar = BarPlot("b.png", "t", "rate", ("none solved", "nothing scored", "half"), (0.0, None, 0.5),
                  (0.0, 0.0, 0.2), (0.4, 0.0, 0.8))
    axes = _drawn(bar)
    points = [line for line in axes.get_lines() if line.get_marker() == "o"]
    assert len(points) == 1
    assert (list(points[0].get_xdata()), list(points[0].get_ydata())) == ([0, 2], [0.0, 0.5])
    assert axes.get_ylim()[0] < 0.0 and _visible(axes, points[0])
    assert render_png(bar).startswith(PNG_SIGNATURE)
