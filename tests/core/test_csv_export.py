"""CSV exports never hand a spreadsheet a formula (core/csv_export.py): every export of the back
office (the GGR and RTP reports, an account's lines) writes its cells through `csv_cell`."""

import csv
import io
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.models import Round, RoundStatus
from core.actors import Actor
from core.csv_export import FORMULA_STARTS, PLAIN_NUMBER, CsvWriter, csv_cell
from ledger.models import EntryKind
from ledger.services import Line, ledger_post, outside_account, player_accounts_open
from tests.casino.test_reports import add_round
from tests.factories import TableFactory, make_player

EVIL = '=HYPERLINK("http://evil.example","x")'


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_text_that_a_spreadsheet_would_run_is_written_as_text(start):
    assert csv_cell(f"{start}1+2") == f"'{start}1+2"


def test_numbers_and_plain_text_are_written_as_they_are():
    assert csv_cell(Decimal("-2.00")) == Decimal("-2.00") and csv_cell(-5) == -5 and csv_cell(0.25) == 0.25
    assert csv_cell("-2.00") == "-2.00" and csv_cell("-12") == "-12"  # money_decimal's text
    assert csv_cell("Classic EUR") == "Classic EUR" and csv_cell(None) == "" and csv_cell("a=b") == "a=b"
    assert csv_cell("-2.00+cmd") == "'-2.00+cmd" and csv_cell("-1e3") == "'-1e3"


@given(st.text())
def test_no_text_cell_starts_a_formula(text):
    written = io.StringIO(newline="")
    CsvWriter(written).writerow([text])
    (cell,) = next(csv.reader(io.StringIO(written.getvalue(), newline="")))
    assert not cell.startswith(FORMULA_STARTS) or PLAIN_NUMBER.fullmatch(cell)
    assert cell == text or (cell == "'" + text and text.startswith(FORMULA_STARTS))


def cells(response) -> list[list[str]]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.reader(io.StringIO(body.decode(), newline="")))


@pytest.mark.django_db
def test_a_table_named_like_a_formula_is_text_in_the_reports(admin_client):
    table = TableFactory(name=EVIL)
    player = make_player(username="alice")
    add_round(
        player, table, main=1000, nets={"main": -1000, "raise": 0, "tie": 0, "bonus": 0}, status=RoundStatus.SETTLED
    )
    assert Round.objects.count() == 1
    for path in ("/admin/reports/ggr/?by=table&format=csv", "/admin/reports/rtp/?format=csv"):
        rows = cells(admin_client.get(path))
        assert [cell for row in rows for cell in row if EVIL in cell] == ["'" + EVIL], path
        assert not any(cell.startswith(FORMULA_STARTS) for row in rows for cell in row if not _number(cell)), path


@pytest.mark.django_db
def test_an_account_line_export_neutralises_text_and_keeps_negative_amounts(admin_client):
    player = make_player(username="bob", balance=5_000)
    wallet, _ = player_accounts_open(player=player)
    ledger_post(
        idempotency_key="evil-line",
        kind=EntryKind.WITHDRAWAL,
        lines=[Line(outside_account(currency="EUR"), 200), Line(wallet, -200)],
        actor=Actor.system("tests"),
        reason="x",
        reference_type="@SUM(A1:A9)",
        reference_id=EVIL,
    )
    rows = cells(admin_client.get(f"/admin/ledger/account/{wallet.pk}/lines.csv"))
    header, newest = rows[0], dict(zip(rows[0], rows[1], strict=True))
    assert newest["reference_type"] == "'@SUM(A1:A9)" and newest["reference_id"] == "'" + EVIL
    assert newest["amount"] == "-2.00" and header[-1] == "currency"  # an amount is a number, sign and all


def _number(text: str) -> bool:
    try:
        Decimal(text)
    except ArithmeticError:
        return False
    return True
