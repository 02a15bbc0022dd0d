"""Statistics of War variants by simulation: who wins, how often nobody does, how long games
last, how many wars, how many stopped by a limit; each with a 95 % interval, reproducible from a
seed (game i is dealt from the provably fair stream of that seed with nonce i)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from casino.engine.fairness import HmacStream
from casino.engine.war import build_rules, play_dealt, seeded_deal
from casino.engine.war.records import Reason
from casino.odds.stats import mean, proportion, quantile
from casino.odds.validation import seed_bytes

LIMIT_REASONS = {Reason.LIMIT_DRAW, Reason.LIMIT_COUNT}


@dataclass
class VariantStats:
    preset: str
    options: dict[str, Any]
    seats: int
    games: int = 0
    wins: Counter = field(default_factory=Counter)
    draws: int = 0
    limited: int = 0
    reasons: Counter = field(default_factory=Counter)
    lengths: list[int] = field(default_factory=list)
    wars: list[int] = field(default_factory=list)
    double_wars: list[int] = field(default_factory=list)

    def add(self, game) -> None:
        result = game.result
        self.add_summary(
            winner=result.winner,
            reason=result.reason,
            battles=result.battles,
            wars=sum(1 for b in game.battles if b.war_steps >= 1),
            double_wars=sum(1 for b in game.battles if b.war_steps >= 2),
        )

    def add_summary(self, *, winner: int | None, reason: Reason, battles: int, wars: int, double_wars: int) -> None:
        self.games += 1
        self.reasons[reason.value] += 1
        if winner is None:
            self.draws += 1
        else:
            self.wins[winner] += 1
        if reason in LIMIT_REASONS:
            self.limited += 1
        self.lengths.append(battles)
        self.wars.append(wars)
        self.double_wars.append(double_wars)

    def as_json(self) -> dict[str, Any]:
        ordered = sorted(self.lengths)

        def mean_of(values):
            return mean(float(sum(values)), float(sum(v * v for v in values)), len(values)).as_json(3)

        return {
            "preset": self.preset,
            "options": self.options,
            "seats": self.seats,
            "games": self.games,
            "win": {str(seat): proportion(self.wins[seat], self.games).as_json(4) for seat in range(self.seats)},
            "draw": proportion(self.draws, self.games).as_json(4),
            "stopped_by_limit": proportion(self.limited, self.games).as_json(4),
            "reasons": dict(self.reasons),
            "battles": {
                "mean": mean_of(self.lengths),
                "median": quantile(ordered, 0.5),
                "quantiles": {str(q): quantile(ordered, q) for q in (0.1, 0.25, 0.75, 0.9, 0.99)},
                "max": ordered[-1] if ordered else None,
            },
            "wars_per_game": mean_of(self.wars),
            "double_wars_per_game": mean_of(self.double_wars),
        }


def simulate(
    preset: str,
    options: dict[str, Any] | None = None,
    *,
    games: int,
    seed: str = "war-stats",
    progress: Iterable[int] | None = None,
    bulk: bool = False,
) -> VariantStats:
    """`bulk=True` plays the games on the compiled bulk path (same results, deal for deal) where
    the variant allows it (the common model with seat or winner gathering)."""
    rules = build_rules(preset, options or {})
    stats = VariantStats(preset=preset, options=dict(options or {}), seats=rules.seats)
    key = seed_bytes(seed)
    nonces = progress if progress is not None else range(games)
    if bulk:
        from casino.odds.bulk import REASONS, play_many, supports

        if supports(rules):
            deals = [seeded_deal(rules, HmacStream(key, preset, nonce)) for nonce in nonces]
            for row in play_many(rules, deals):
                stats.add_summary(
                    winner=None if row[0] < 0 else int(row[0]),
                    reason=Reason(REASONS[row[1]]),
                    battles=int(row[2]),
                    wars=int(row[3]),
                    double_wars=int(row[4]),
                )
            return stats
    for nonce in nonces:
        stream = HmacStream(key, preset, nonce)
        stats.add(play_dealt(rules, seeded_deal(rules, stream), stream, record_events=False))
    return stats


def length_histogram_svg(stats: VariantStats, *, width: int = 560, height: int = 240, bins: int = 30) -> str:
    """A self-contained SVG histogram of game lengths (battles), log-spaced bins."""
    values = [v for v in stats.lengths if v > 0]
    title = f"{stats.preset}: battles per game ({stats.games} games)"
    if not values:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"><text x="10" y="20">{title}: no data</text></svg>'
    low, high = math.log10(min(values)), math.log10(max(values) + 1)
    span = max(high - low, 1e-9)
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((math.log10(v) - low) / span * bins))] += 1
    left, bottom, top, right = 48, 36, 28, 12
    plot_w, plot_h = width - left - right, height - top - bottom
    tallest = max(counts)
    bars = []
    for i, count in enumerate(counts):
        h = plot_h * count / tallest
        x = left + i * plot_w / bins
        bars.append(
            f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{plot_w / bins - 1:.1f}" height="{h:.1f}" fill="#0f5b3a"><title>{count}</title></rect>'
        )
    ticks = []
    for power in range(math.floor(low), math.ceil(high) + 1):
        if low <= power <= high:
            x = left + (power - low) / span * plot_w
            ticks.append(
                f'<line x1="{x:.1f}" y1="{top + plot_h}" x2="{x:.1f}" y2="{top + plot_h + 4}" stroke="#333"/>'
                f'<text x="{x:.1f}" y="{top + plot_h + 16}" font-size="11" text-anchor="middle">{10**power:,}</text>'
            )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" role="img" aria-label="{title}">'
        f'<rect width="100%" height="100%" fill="#fff"/>'
        f'<text x="{left}" y="18" font-size="13" font-weight="bold">{title}</text>'
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#333"/>'
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#333"/>'
        f'<text x="{left - 6}" y="{top + 10}" font-size="11" text-anchor="end">{tallest}</text>'
        f'<text x="{left - 6}" y="{top + plot_h}" font-size="11" text-anchor="end">0</text>'
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 4}" font-size="11" text-anchor="middle">battles (log scale)</text>'
        + "".join(bars)
        + "".join(ticks)
        + "</svg>"
    )
