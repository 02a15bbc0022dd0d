"""Small, dependency-free SVG charts for the back office, drawn on the server (no script, no CDN).

Values come as numbers; `value_text` writes them for people (money in its currency, a count, a
percentage), for the axis and for each bar's tooltip. Charts scale to their container (viewBox)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape


def _plain(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _svg_open(width: int, height: int, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" font-family="sans-serif" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>"
        f'<text x="4" y="18" font-size="13" font-weight="bold" fill="currentColor">{escape(title)}</text>'
    )


def bar_chart_svg(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    width: int = 720,
    height: int = 260,
    value_text: Callable[[float], str] = _plain,
) -> str:
    """Bars up (green) and down (red) from zero, labelled underneath when there are at most 31."""
    left, right, top, bottom = 84, 12, 30, 48
    plot_w, plot_h = width - left - right, height - top - bottom
    if not values:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} 40" width="{width}" '
            f'height="40"><text x="4" y="20" fill="currentColor">{escape(title)}: no data</text></svg>'
        )
    high, low = max(0.0, max(values)), min(0.0, min(values))
    span = (high - low) or 1.0
    zero_y = top + plot_h * high / span
    step = plot_w / len(values)
    parts = [
        _svg_open(width, height, title),
        f'<line x1="{left}" y1="{zero_y:.1f}" x2="{left + plot_w}" y2="{zero_y:.1f}" stroke="currentColor"/>',
        f'<text x="{left - 6}" y="{top + 4}" font-size="11" text-anchor="end" fill="currentColor">'
        f"{escape(value_text(high))}</text>",
        f'<text x="{left - 6}" y="{top + plot_h}" font-size="11" text-anchor="end" fill="currentColor">'
        f"{escape(value_text(low))}</text>",
    ]
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        h = plot_h * abs(value) / span
        y = zero_y - h if value >= 0 else zero_y
        colour = "#0f7b4a" if value >= 0 else "#c0132f"
        x = left + i * step
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{max(step - 2, 1):.1f}" height="{max(h, 0.5):.1f}" '
            f'fill="{colour}"><title>{escape(label)}: {escape(value_text(value))}</title></rect>'
        )
        if len(values) <= 31 and (len(values) <= 16 or i % 2 == 0):
            parts.append(
                f'<text x="{x + step / 2:.1f}" y="{height - bottom + 14}" font-size="10" text-anchor="middle" '
                f'fill="currentColor">{escape(label[-5:])}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def interval_chart_svg(
    rows: Sequence[tuple[str, float, float, float, float]],
    *,
    title: str,
    width: int = 720,
    value_text: Callable[[float], str] = _plain,
) -> str:
    """One line per row (label, low, observed, high, reference): the interval as a bar, the observed
    value as a dot, the reference (an exact figure) as a tick. Rows whose interval holds the
    reference are green, the others red."""
    left, right, top, row_h = 230, 20, 34, 30
    height = top + row_h * max(1, len(rows)) + 26
    if not rows:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} 40" width="{width}" '
            f'height="40"><text x="4" y="20" fill="currentColor">{escape(title)}: no data</text></svg>'
        )
    low = min(min(r[1], r[4]) for r in rows)
    high = max(max(r[3], r[4]) for r in rows)
    pad = (high - low) * 0.08 or 0.01
    low, high = low - pad, high + pad
    plot_w = width - left - right

    def x_of(value: float) -> float:
        return left + plot_w * (value - low) / (high - low)

    parts = [_svg_open(width, height, title)]
    for i, (label, lo, mid, hi, reference) in enumerate(rows):
        y = top + i * row_h + row_h / 2
        colour = "#0f7b4a" if lo <= reference <= hi else "#c0132f"
        tip = (
            f"{label}: observed {value_text(mid)} (95 % interval {value_text(lo)} to {value_text(hi)}), "
            f"exact {value_text(reference)}"
        )
        parts += [
            f'<text x="{left - 8}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="currentColor">'
            f"{escape(label)}</text>",
            f"<g><title>{escape(tip)}</title>"
            f'<line x1="{x_of(lo):.1f}" y1="{y:.1f}" x2="{x_of(hi):.1f}" y2="{y:.1f}" stroke="{colour}" '
            f'stroke-width="6" stroke-linecap="round" opacity="0.45"/>'
            f'<circle cx="{x_of(mid):.1f}" cy="{y:.1f}" r="5" fill="{colour}"/>'
            f'<line x1="{x_of(reference):.1f}" y1="{y - 10:.1f}" x2="{x_of(reference):.1f}" y2="{y + 10:.1f}" '
            f'stroke="currentColor" stroke-width="2"/></g>',
        ]
    axis_y = top + row_h * len(rows) + 14
    parts += [
        f'<text x="{left}" y="{axis_y}" font-size="10" fill="currentColor">{escape(value_text(low))}</text>',
        f'<text x="{left + plot_w}" y="{axis_y}" font-size="10" text-anchor="end" fill="currentColor">'
        f"{escape(value_text(high))}</text>",
        f'<text x="{left + plot_w / 2:.1f}" y="{axis_y}" font-size="10" text-anchor="middle" fill="currentColor">'
        "dot: observed · bar: 95 % interval · tick: exact</text>",
        "</svg>",
    ]
    return "".join(parts)
