"""The back office's SVG charts: drawn on the server, values written by the caller's rule (money)."""

from core.charts import bar_chart_svg, interval_chart_svg
from ledger.money import format_money


def test_a_bar_chart_writes_its_values_as_money_and_draws_losses_below_zero():
    svg = bar_chart_svg(
        ["2026-11-01", "2026-11-02"],
        [14800, -200],
        title="GGR per day, EUR",
        value_text=lambda v: format_money(round(v), "EUR"),
    )
    assert svg.startswith("<svg") and 'viewBox="0 0 720 260"' in svg and svg.count("<rect") == 2
    assert "2026-11-01: €148.00" in svg and "2026-11-02: -€2.00" in svg and "14800" not in svg
    assert 'fill="#c0132f"' in svg  # the loss
    assert "<script" not in svg and "style=" not in svg  # nothing the Content-Security-Policy would block


def test_an_empty_chart_says_so():
    assert "no data" in bar_chart_svg([], [], title="Rounds") and "no data" in interval_chart_svg([], title="RTP")


def test_an_interval_chart_marks_an_exact_figure_outside_the_interval():
    svg = interval_chart_svg(
        [("Inside", 0.95, 0.97, 0.99, 0.9712), ("Outside", 0.90, 0.91, 0.92, 0.9712)],
        title="RTP",
        value_text=lambda v: f"{v * 100:.2f} %",
    )
    assert svg.count("<circle") == 2 and svg.count('fill="#0f7b4a"') == 1 and svg.count('fill="#c0132f"') == 1
    assert "Outside: observed 91.00 % (95 % interval 90.00 % to 92.00 %), exact 97.12 %" in svg
