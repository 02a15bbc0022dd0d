"""The chips a table offers: casino denominations that fit its limits and its bet step.

A chip is worth 1, 2.5 or 5 times a power of ten minor units (1, 5, 10, 25, 50, 100, 250, 500,
1000, 2500...), like the chips of a real casino, and only what the table can take: a multiple of
its bet step, no smaller than the step and no larger than the maximum bet. The smallest chip is
the largest such denomination that the minimum bet is made of (a €10 table starts at €10, a €1
table at €1), and the others climb from it about fivefold (€1, €5, €25, €100, €500), more
closely when the table's range is too narrow for five such chips. A table with an unusual step
(€2, €3) counts the same denominations in steps (€3, €15, €30). So every sum of chips is on the
table's step and a few chips make any bet the table takes.
"""

from __future__ import annotations

CHIP_COUNT = 5
_MANTISSAS = (10, 25, 50)  # tenths: 1, 2.5 and 5 times a power of ten


def _denominations(up_to: int) -> list[int]:
    values, power = [], 1
    while power <= up_to * 10:
        values += [m * power // 10 for m in _MANTISSAS if (m * power) % 10 == 0 and 0 < m * power // 10 <= up_to]
        power *= 10
    return sorted(set(values))


def chip_values(*, min_bet: int, max_bet: int, bet_step: int) -> list[int]:
    """Up to five chip values in minor units, smallest first."""
    if not 0 < bet_step <= max_bet:
        return []
    fitting = [value for value in _denominations(max_bet) if value % bet_step == 0 and value >= bet_step]
    makes_minimum = [value for value in fitting if value <= min_bet and min_bet % value == 0]
    if len(fitting) < 3 or not makes_minimum:  # an unusual step (€2, €3): the denominations counted in steps
        fitting = sorted({*fitting, *(bet_step * units for units in _denominations(max_bet // bet_step))})
        makes_minimum = [value for value in fitting if value <= min_bet and min_bet % value == 0]
    start = makes_minimum[-1]
    ladder = [value for value in fitting if value >= start]
    for ratio in (4, 2):
        chips = _climb(ladder, ratio)
        if len(chips) == CHIP_COUNT:
            return chips
    return _climb(ladder, 1)


def _climb(ladder: list[int], ratio: int) -> list[int]:
    """From the smallest, each next chip at least `ratio` times the one before."""
    chips = [ladder[0]]
    for value in ladder[1:]:
        if len(chips) < CHIP_COUNT and value >= chips[-1] * ratio:
            chips.append(value)
    return chips
