"""Each report's figures against hand-computed data."""

import csv
import io

import pytest
from django.contrib.auth.models import Group

from accounts.roles import SUPPORT
from accounts.services import partner_create, player_create, roles_sync
from casino.models import Round, RoundStatus, SeedPair
from casino.reports import ggr_report, rtp_report
from tests.factories import StaffFactory, TableFactory, make_player

pytestmark = pytest.mark.django_db


def add_round(player, table, *, main, tie=0, raise_bet=0, nets, status=RoundStatus.SETTLED):
    pair, _ = SeedPair.objects.get_or_create(player=player, active=True, defaults={"server_seed": "0" * 64,
                                             "server_seed_hash": f"{player.pk:064d}", "client_seed": "c"})  # fmt: skip
    net = sum(nets.values())
    return Round.objects.create(
        player=player, table=table, currency=table.currency, status=status, rules={}, main_bet=main, tie_bet=tie,
        raise_bet=raise_bet, player_card="KH", dealer_card="2C", seed_pair=pair, nonce=Round.objects.count(),
        shoe_nonce=0, nets=nets, net=net, payout=main + tie + raise_bet + net, placed_by_type="player", placed_by_id="1",
    )  # fmt: skip


@pytest.fixture
def data():
    eur = TableFactory(name="EUR table")
    usd = TableFactory(name="USD table", currency="USD")
    partner, _ = partner_create(name="Big Partner")
    alice = make_player(username="alice")
    bob = player_create(username="bob", password=None, partner=partner, external_id="b1")
    carol = make_player(username="carol", currency="USD")
    add_round(
        alice, eur, main=1000, tie=100, nets={"main": 1000, "raise": 0, "tie": -100, "bonus": 0}
    )  # paid 2000 of 1100
    add_round(alice, eur, main=1000, nets={"main": -1000, "raise": 0, "tie": 0, "bonus": 0})  # paid 0 of 1000
    add_round(bob, eur, main=500, raise_bet=500, nets={"main": -500, "raise": -500, "tie": 0, "bonus": 0})  # 0 of 1000
    add_round(carol, usd, main=2000, nets={"main": -1000, "raise": 0, "tie": 0, "bonus": 0})  # surrender: 1000 of 2000
    add_round(
        carol, usd, main=700, nets={"main": 0, "raise": 0, "tie": 0, "bonus": 0}, status=RoundStatus.AWAITING_DECISION
    )
    return eur, usd


def test_ggr_by_table_partner_and_currency(data):
    by_table = {row["table"]: row for row in ggr_report(by="table")}
    assert by_table["EUR table"] == {
        "table": "EUR table",
        "currency": "EUR",
        "rounds": 3,
        "staked": 3100,
        "paid_out": 2000,
        "ggr": 1100,
    }
    assert by_table["USD table"]["ggr"] == 1000 and by_table["USD table"]["rounds"] == 1  # a waiting round is left out
    by_partner = {row["partner"]: row["ggr"] for row in ggr_report(by="partner") if row["currency"] == "EUR"}
    assert by_partner == {"(own players)": 100, "Big Partner": 1000}
    by_currency = {row["currency"]: row["ggr"] for row in ggr_report(by="currency")}
    assert by_currency == {"EUR": 1100, "USD": 1000}
    (day,) = [row for row in ggr_report(by="day") if row["currency"] == "EUR"]
    assert day["ggr"] == 1100


def test_observed_rtp_per_table_and_bet(data):
    rows = {(row["table"], row["bet"]): row for row in rtp_report()}
    main = rows[("EUR table", "main")]
    # returns per unit of the main bet: 2.0, 0.0, 0.0 -> mean 2/3
    assert main["rounds"] == 3 and main["observed_rtp"] == pytest.approx(2 / 3, abs=1e-6)
    assert main["exact_rtp"] == pytest.approx(0.971229, abs=1e-6) and main[
        "exact_rtp_if_surrendering"
    ] == pytest.approx(0.963023, abs=1e-6)
    assert main["ci95_low"] < main["observed_rtp"] < main["ci95_high"]
    tie = rows[("EUR table", "tie")]
    assert tie["rounds"] == 1 and tie["observed_rtp"] == 0.0 and tie["exact_rtp"] == pytest.approx(0.813505, abs=1e-6)
    assert rows[("USD table", "main")]["observed_rtp"] == 0.5


def test_report_pages_and_csv(admin_client, data):
    page = admin_client.get("/admin/reports/ggr/?by=table")
    assert page.status_code == 200 and b"<svg" in page.content and b"EUR table" in page.content
    exported = admin_client.get("/admin/reports/ggr/?by=currency&format=csv")
    rows = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert exported["Content-Type"].startswith("text/csv") and {r["currency"]: r["ggr"] for r in rows} == {
        "EUR": "1100",
        "USD": "1000",
    }
    rtp = admin_client.get("/admin/reports/rtp/?format=csv").content.decode()
    assert "observed_rtp" in rtp.splitlines()[0]
    assert admin_client.get("/admin/reports/").status_code == 200
    assert admin_client.get("/admin/reports/ggr/?start=yesterday").status_code == 200  # a clear error, no crash


def test_reports_need_the_permission(client, data):
    roles_sync()
    nobody = StaffFactory()
    client.force_login(nobody)
    assert client.get("/admin/reports/ggr/").status_code == 403
    support = StaffFactory()
    support.groups.add(Group.objects.get(name=SUPPORT))
    client.force_login(support)
    assert client.get("/admin/reports/ggr/").status_code == 200
