"""docs/WAR_STATISTICS.md, its charts and war_statistics.json are what README's `war-report`
command writes: its seed and size are the document's, and the cheap variants come out of it
byte for byte (the whole run takes minutes; the rest of the page is the same template)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from casino.odds.report import VARIANTS, chart_name, report_page, variant_report

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
CHEAP = [("standard", {"max_battles": 50, "on_limit": "count"}), ("tod_und_leben", {})]


def readme_war_report() -> dict[str, str]:
    """The options of README's war-report command line."""
    (line,) = [line for line in (ROOT / "README.md").read_text().splitlines() if "casino.odds war-report" in line]
    words = shlex.split(line.split("#", 1)[0])
    return {word: words[index + 1] for index, word in enumerate(words) if word.startswith("--")}


def committed_rows() -> list[str]:
    return [line for line in (DOCS / "WAR_STATISTICS.md").read_text().splitlines() if line.startswith("| `")]


def test_readmes_command_is_the_one_that_made_the_committed_report():
    options = readme_war_report()
    assert options == {"--games": "1000", "--seed": "war-report-2026-11-29", "--out": "docs"}
    page = (DOCS / "WAR_STATISTICS.md").read_text()
    rows = committed_rows()
    assert len(rows) == len(VARIANTS)
    assert page == report_page(games=int(options["--games"]), seed=options["--seed"], rows=rows)


@pytest.mark.parametrize(("preset", "options"), CHEAP, ids=[chart_name(*variant) for variant in CHEAP])
def test_a_variant_of_readmes_command_reproduces_its_row_chart_and_figures(preset, options):
    command = readme_war_report()
    data, row, chart = variant_report(preset, options, games=int(command["--games"]), seed=command["--seed"])
    index = VARIANTS.index((preset, options))
    assert row == committed_rows()[index]
    assert chart == (DOCS / "charts" / f"{chart_name(preset, options)}.svg").read_text()
    assert data == json.loads((DOCS / "war_statistics.json").read_text())[index]


def test_every_chart_the_report_names_is_committed():
    named = re.findall(r"\(charts/([^)]+\.svg)\)", (DOCS / "WAR_STATISTICS.md").read_text())
    assert sorted(named) == sorted(path.name for path in (DOCS / "charts").glob("*.svg"))
