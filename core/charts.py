"""A small, dependency-free SVG bar chart for the back office's reports."""

from __future__ import annotations

from html import escape


def bar_chart_svg(labels: list[str], values: list[float], *, title: str, width: int = 720, height: int = 260) -> str:
    left, right, top, bottom = 70, 12, 30, 48
    plot_w, plot_h = width - left - right, height - top - bottom
    if not values:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="40"><text x="4" y="20">{escape(title)}: no data</text></svg>'
    high, low = max(0.0, max(values)), min(0.0, min(values))
    span = (high - low) or 1.0
    zero_y = top + plot_h * high / span
    step = plot_w / len(values)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" role="img" aria-label="{escape(title)}">',
        f'<text x="{left}" y="18" font-size="13" font-weight="bold">{escape(title)}</text>',
        f'<line x1="{left}" y1="{zero_y:.1f}" x2="{left + plot_w}" y2="{zero_y:.1f}" stroke="#333"/>',
        f'<text x="{left - 6}" y="{top + 4}" font-size="11" text-anchor="end">{high:,.2f}</text>',
        f'<text x="{left - 6}" y="{top + plot_h}" font-size="11" text-anchor="end">{low:,.2f}</text>',
    ]
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        h = plot_h * abs(value) / span
        y = zero_y - h if value >= 0 else zero_y
        colour = "#0f5b3a" if value >= 0 else "#b00020"
        x = left + i * step
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{max(step - 2, 1):.1f}" height="{h:.1f}" fill="{colour}"><title>{escape(label)}: {value:,.2f}</title></rect>'
        )
        if len(values) <= 31:
            parts.append(
                f'<text x="{x + step / 2:.1f}" y="{height - bottom + 14}" font-size="10" text-anchor="middle">{escape(label[-5:])}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)
