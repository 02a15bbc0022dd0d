"""CSV exports of the back office: every cell written so that a spreadsheet shows it and never runs it.

A spreadsheet reads a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage return
before one) as a formula: a table named `=HYPERLINK("http://evil.example","x")` or a partner's
reference `=cmd|'/c calc'!A1` would run in the operator's spreadsheet. Text that starts so is
written with a `'` in front (OWASP's advice), which spreadsheets show as the text itself. Numbers
(counts, and amounts as decimals, `money_decimal`'s "-2.00" included) are written as they are: a
plain number is no formula.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from decimal import Decimal

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def csv_cell(value: object) -> object:
    """A cell as it is written: a number as it is, any other value as text that cannot start a formula."""
    if value is None or isinstance(value, bool):
        return "" if value is None else str(value)
    if isinstance(value, int | float | Decimal):
        return value
    text = str(value)
    if text.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


class CsvWriter:
    """`csv.writer` for exports: each row's cells through `csv_cell`. `writerow` returns what it
    wrote to `out` (a streaming response's pseudo-buffer returns the line)."""

    def __init__(self, out) -> None:
        self._writer = csv.writer(out)

    def writerow(self, values: Iterable[object]):
        return self._writer.writerow([csv_cell(value) for value in values])
