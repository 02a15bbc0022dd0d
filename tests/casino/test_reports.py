"""Each report's figures against hand-computed data."""

import csv
import io
import math
from datetime import UTC, timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from accounts.roles import AUDITOR, OPERATOR, SUPPORT
from accounts.services import partner_create, player_create, roles_sync
from casino.engine import FreshShoe, HmacStream, play_round
from casino.models import Round, RoundHour, RoundHourTotal, RoundStatus, SeedPair
from casino.odds.validation import seed_bytes
from casino.reports import ggr_report, last_finished_hour, round_hours_sum_up, round_totals, rtp_report
from tests.factories import StaffFactory, TableFactory, make_player

pytestmark = pytest.mark.django_db


def add_round(player, table, *, main, tie=0, raise_bet=0, nets, status=RoundStatus.SETTLED, resolved_at=None):
    pair, _ = SeedPair.objects.get_or_create(
        player=player,
        active=True,
        defaults={"server_seed": "0" * 64, "server_seed_hash": f"{player.pk:064d}", "client_seed": "c"},
    )
    net = sum(nets.values())
    return Round.objects.create(
        player=player,
        table=table,
        currency=table.currency,
        status=status,
        rules={},
        main_bet=main,
        tie_bet=tie,
        raise_bet=raise_bet,
        player_card="KH",
        dealer_card="2C",
        seed_pair=pair,
        nonce=Round.objects.count(),
        shoe_nonce=0,
        nets=nets,
        net=net,
        payout=main + tie + raise_bet + net,
        placed_by_type="player",
        placed_by_id="1",
        resolved_at=None if status == RoundStatus.AWAITING_DECISION else (resolved_at or timezone.now()),
    )


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
    # returns per unit of the main bet, 1 + net / main: 2.0, 0.0 and -1.0 for the war lost (main and
    # raise gone), as the odds module's RTP counts it -> mean 1/3
    assert main["rounds"] == 3 and main["observed_rtp"] == pytest.approx(1 / 3, abs=1e-6)
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
    # Amounts as decimals of major units beside a currency column: what spreadsheets read in any language.
    assert exported["Content-Type"].startswith("text/csv") and {r["currency"]: r["ggr"] for r in rows} == {
        "EUR": "11.00",
        "USD": "10.00",
    }
    assert {r["currency"]: r["staked"] for r in rows} == {"EUR": "31.00", "USD": "20.00"}
    rtp = list(csv.DictReader(io.StringIO(admin_client.get("/admin/reports/rtp/?format=csv").content.decode())))
    assert {(r["table"], r["bet"]): (r["currency"], r["staked"]) for r in rtp}[("EUR table", "main")] == (
        "EUR",
        "30.00",
    )
    assert "observed_rtp" in rtp[0]
    shown = page.content.decode()
    assert "€31.00" in shown and "$20.00" in shown and "minor units" not in shown and ">3100<" not in shown
    assert admin_client.get("/admin/reports/").status_code == 200
    assert admin_client.get("/admin/reports/ggr/?start=yesterday").status_code == 200  # a clear error, no crash


@pytest.mark.parametrize(("role", "allowed"), [(None, False), (SUPPORT, False), (OPERATOR, True), (AUDITOR, True)])
def test_revenue_reports_are_the_operators_and_auditors(client, data, role, allowed):
    roles_sync()
    member = StaffFactory()
    if role:
        member.groups.add(Group.objects.get(name=role))
    client.force_login(member)
    for path in ("/admin/reports/", "/admin/reports/ggr/", "/admin/reports/rtp/", "/admin/reports/ggr/?format=csv"):
        assert client.get(path).status_code == (200 if allowed else 403), (role, path)


# --- Finished hours are summed up once, and read the same as the rounds themselves ---


def _day(days_ago: int, hour: int = 12):
    moment = timezone.now().astimezone(UTC).replace(hour=hour, minute=0, second=0, microsecond=0)
    return moment - timedelta(days=days_ago)


@pytest.fixture
def noon(monkeypatch):
    """The clock at noon (UTC) today: what counts as finished does not depend on when the test runs."""
    monkeypatch.setattr("core.clock.now", lambda: _day(0))


@pytest.fixture
def history(noon):
    eur = TableFactory(name="EUR table")
    alice = make_player(username="alice")
    partner, _ = partner_create(name="Big Partner")
    bob = player_create(username="bob", password=None, partner=partner, external_id="b1")
    win = {"main": 1000, "raise": 0, "tie": 0, "bonus": 0}
    lose = {"main": -1000, "raise": 0, "tie": 0, "bonus": 0}
    add_round(alice, eur, main=1000, nets=win, resolved_at=_day(3))
    add_round(alice, eur, main=1000, nets=lose, resolved_at=_day(3, hour=23))
    add_round(
        bob, eur, main=1000, tie=100, nets={**lose, "tie": 1000}, resolved_at=_day(2)
    )  # the tie bet won 10 to 1: GGR 0
    add_round(bob, eur, main=1000, nets=lose, resolved_at=_day(0, hour=0))  # today
    return eur


def test_finished_hours_are_summed_up_once_and_read_like_the_rounds(history):
    def key(row):
        return tuple(str(row[name]) for name in sorted(row))

    from_the_rounds = sorted(round_totals(now=_day(10)), key=key)  # nothing finished then: every round read live
    assert not RoundHour.objects.exists()
    summed = sorted(round_totals(), key=key)  # sums the finished hours up, reads them, and the last hour live
    assert summed == from_the_rounds
    # Every hour from the first round's is marked, those without rounds too; rows only where rounds were.
    assert RoundHour.objects.order_by("hour").first().hour == _day(3)
    assert RoundHour.objects.filter(hour__gte=_day(3), hour__lt=_day(1)).count() == 48
    assert sorted(row.hour for row in RoundHourTotal.objects.all()) == [
        _day(3),
        _day(3, hour=23),
        _day(2),
        _day(0, hour=0),
    ]
    assert round_hours_sum_up() == 0  # nothing left to sum up
    by_partner = {row["partner"]: row["ggr"] for row in ggr_report(by="partner")}
    assert by_partner == {"(own players)": 0, "Big Partner": 1000}
    per_day = {row["day"]: row["ggr"] for row in ggr_report(by="day")}
    assert per_day == {_day(3).date().isoformat(): 0, _day(2).date().isoformat(): 0, _day(0).date().isoformat(): 1000}
    (tie,) = [row for row in rtp_report() if row["bet"] == "tie"]
    assert tie["rounds"] == 1 and tie["observed_rtp"] == 11.0


def test_a_summed_up_hour_is_what_reads_use(history):
    ggr_report(by="day")
    RoundHourTotal.objects.filter(hour=_day(3)).update(paid=0)  # the summed-up row, not the rounds, is read
    assert {row["day"]: row["ggr"] for row in ggr_report(by="day")}[_day(3).date().isoformat()] == 2000


def test_an_hour_is_summed_up_only_when_it_is_over_for_the_grace_period(history):
    just_after_midnight = _day(0, hour=0) + timedelta(minutes=5)
    assert last_finished_hour(just_after_midnight) == _day(1, hour=22)
    round_hours_sum_up(now=just_after_midnight)
    assert RoundHour.objects.filter(hour=_day(1, hour=22)).exists()
    assert not RoundHour.objects.filter(hour=_day(1, hour=23)).exists()  # may still get a late commit
    rows = round_totals(start=_day(1).date(), end=_day(0).date(), now=just_after_midnight)
    assert sum(row["rounds"] for row in rows) == 1  # today's round, read from the rounds themselves


def test_dates_bound_the_reports(history):
    rows = ggr_report(by="currency", start=_day(2).date(), end=_day(2).date())
    assert rows == [{"currency": "EUR", "rounds": 1, "staked": 1100, "paid_out": 1100, "ggr": 0}]
    assert ggr_report(by="table", start=_day(0).date())[0]["rounds"] == 1


def test_the_engine_s_rounds_give_an_observed_rtp_whose_interval_holds_the_exact_figure(noon):
    """Rounds dealt by the engine (every tie to war, a tie bet on each) and stored as the service
    stores them: the report's observed RTP of each bet must be the odds module's, within its interval."""
    table = TableFactory(name="Engine EUR")
    player = make_player(username="sim")
    pair = SeedPair.objects.create(player=player, server_seed="0" * 64, server_seed_hash="1" * 64, client_seed="c")
    key, rules, moment = seed_bytes("back-office-rtp"), table.rules, _day(1)
    rounds = []
    for nonce in range(4_000):
        state = play_round(rules=rules, main=1000, tie=100, cards=FreshShoe(rules.decks, HmacStream(key, "war", nonce)))
        rounds.append(
            Round(
                player=player,
                table=table,
                currency="EUR",
                status=RoundStatus.SETTLED,
                rules=rules.as_json(),
                main_bet=1000,
                tie_bet=100,
                raise_bet=state.raise_bet,
                player_card=state.player_card.code,
                dealer_card=state.dealer_card.code,
                outcome=state.outcome.value,
                nets=state.nets.as_dict(),
                net=state.nets.total,
                payout=state.payout,
                seed_pair=pair,
                nonce=nonce,
                shoe_nonce=nonce,
                placed_by_type="player",
                placed_by_id="1",
                resolved_at=moment,
                settled_at=moment,
            )
        )
    Round.objects.bulk_create(rounds)
    report = {row["bet"]: row for row in rtp_report()}
    for bet in ("main", "tie"):
        row = report[bet]
        assert row["rounds"] == 4_000 and row["ci95_low"] <= row["exact_rtp"] <= row["ci95_high"], row
    assert abs(report["main"]["observed_rtp"] - report["main"]["exact_rtp"]) < 0.04
    (table_ggr,) = ggr_report(by="table")
    assert table_ggr["ggr"] == -sum(r.net for r in rounds)  # what the players lost, the house won


@hyp_settings(max_examples=300, deadline=None)
@given(
    returns=st.lists(st.sampled_from([-1.0, 0.5, 2.0]), min_size=1, max_size=60),
    wins=st.integers(min_value=0, max_value=60),
    bets=st.integers(min_value=1, max_value=60),
    pays=st.integers(min_value=1, max_value=30),
)
def test_an_observed_rtp_interval_never_leaves_what_the_bet_can_return(returns, wins, bets, pays):
    """A short run's normal interval went below zero ("-19.772 % to 127.089 %" for a tie bet): the
    main bet's is kept within -100 % (a war lost) and 200 %, the tie bet's is Wilson's of its wins."""
    from casino.reports import Observed, main_return_bounds

    least, most = main_return_bounds(tie_after_tie_bonus=False)
    main = Observed.of(len(returns), sum(returns), sum(r * r for r in returns), least=least, most=most)
    assert least <= main.low <= main.rtp <= main.high <= most
    wins = min(wins, bets)
    tie = Observed.of_wins(bets, wins * (pays + 1.0), pays=pays)
    assert 0 <= tie.low <= tie.rtp <= tie.high <= pays + 1
    assert tie.rtp == pytest.approx(wins * (pays + 1) / bets)


def test_the_rtp_report_of_a_few_tie_bets_gives_an_interval_from_zero_up():
    from casino.reports import Observed

    normal = Observed.of(20, 11.0, 121.0, least=-math.inf, most=math.inf)  # one win of 11 in 20 tie bets
    assert normal.low < 0  # what the page used to show
    tie = Observed.of_wins(20, 11.0, pays=10)
    assert 0 <= tie.low < tie.rtp < tie.high <= 11 and tie.rtp == pytest.approx(0.55)
