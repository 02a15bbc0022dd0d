"""The back office in real Chromium at 1280 px: the sign-in asks for the six-digit code only, the
overview (the admin's index) shows each role its part with server-drawn charts, the rounds list
fits the page with short ids, a round reads in words and money, all under the strict
Content-Security-Policy. Screenshots go to artifacts/screenshots/ (README shows them from docs/)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group

from accounts.roles import OPERATOR, SUPPORT
from accounts.services import partner_create, player_create, roles_sync, staff_totp_enroll
from casino.models import Round, WebhookDelivery
from core.actors import Actor
from ledger.verification import ledger_verify
from protection.services import exclusion_start
from tests.browser import SCREENSHOTS, screenshot
from tests.casino.helpers import play_history
from tests.config.test_csp import REPORT_VIOLATIONS
from tests.core.test_admin_site import code
from tests.factories import TableFactory, make_player

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-back-office-passphrase"


@pytest.fixture
def violations(page):
    seen: list[str] = []
    page.expose_function("reportViolation", lambda text: seen.append(text))
    page.add_init_script(REPORT_VIOLATIONS)
    return seen


def staff_member(django_user_model, username: str, role: str):
    roles_sync()
    user = django_user_model.objects.create_user(username=username, password=PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    device, _ = staff_totp_enroll(username=username)
    return user, device


def sign_in(page, username: str, device, next_path: str = "/admin/") -> None:
    page.goto(f"/admin/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.fill("#id_otp_token", code(device))
    page.click("input[type=submit]")
    page.wait_for_url(f"**{next_path}")


@pytest.fixture
def casino_history():
    """A month of real rounds at two EUR tables, a partner's failing webhook, a time-out, a verification run."""
    classic = TableFactory(name="Classic EUR", min_bet=500, max_bet=50_000, bet_step=100, max_tie_bet=5_000)
    bonus = TableFactory(
        name="High Roller EUR",
        min_bet=1_000,
        max_bet=500_000,
        bet_step=500,
        max_tie_bet=50_000,
        tie_pays=11,
        tie_after_tie_bonus=True,
    )
    players = [make_player(balance=5_000_000, username=f"player{i}") for i in range(4)]
    play_history(players=players, tables=[classic, bonus], days=30, per_day=8)
    partner, _ = partner_create(name="Example Casino")
    theirs = player_create(username="partner-player", password=None, partner=partner, external_id="p-1")
    WebhookDelivery.objects.create(
        partner=partner,
        round=Round.objects.first(),
        payload={"event": "round.settled"},
        next_attempt_at=Round.objects.first().created_at,
        attempts=3,
        last_status_code=503,
    )
    exclusion_start(player=players[0], kind="timeout", days=3, actor=Actor.player(players[0]))
    exclusion_start(player=theirs, kind="self_exclusion", months=6, actor=Actor.player(theirs))
    ledger_verify(triggered_by="nightly")
    return classic, bonus


def test_the_sign_in_asks_for_the_six_digit_code_only(page, violations, django_user_model):
    _, device = staff_member(django_user_model, "olive", OPERATOR)
    page.goto("/admin/login/")
    page.fill("#id_username", "olive")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_otp_token", code(device))
    screenshot(page, "admin-sign-in-code")
    page.fill("#id_password", "not the password")
    page.click("input[type=submit]")  # a refused sign-in shows the form again, still without a device menu
    page.locator(".errornote").wait_for()  # the answered page, not the one the click left
    form = page.locator("#login-form")
    assert form.locator("select").count() == 0 and form.locator("[name=otp_challenge]").count() == 0
    assert form.locator("input[type=submit]").count() == 1
    assert "Six-digit code" in form.inner_text() and "OTP" not in form.inner_text()
    assert page.locator("#id_otp_token").get_attribute("autocomplete") == "one-time-code"
    icon = page.locator("link[rel=icon]").get_attribute("href")
    assert page.request.get(icon).ok and page.request.get("/favicon.ico").ok
    page.fill("#id_password", PASSWORD)
    page.fill("#id_otp_token", code(device))
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    assert violations == [], violations


def test_the_overview_shows_an_operator_play_revenue_and_the_health_of_payments(
    page, violations, django_user_model, casino_history
):
    _, device = staff_member(django_user_model, "olive", OPERATOR)
    sign_in(page, "olive", device)
    body = page.inner_text("#content-main")
    for expected in (
        "Today, EUR",
        "Awaiting a decision",
        "Settlement",
        "Partner webhooks failing",
        "Ledger verification",
        "all invariants hold",
        "Players protected now",
        "Classic EUR",
        "High Roller EUR",
        "main bet, observed",
        "war / surrender",
    ):
        assert expected.lower() in body.lower(), expected
    assert re.search(r"GGR -?€[\d,]+\.\d\d", body)  # money in its currency, never cents
    assert page.locator("[data-tile=webhooks] .figure").inner_text().startswith("1")
    assert page.locator("[data-tile=exclusions]").inner_text().count("1") >= 2
    assert page.locator("svg.chart").count() == 3  # rounds per day, GGR per day (EUR), RTP against exact
    assert page.locator("svg.chart rect").count() >= 60
    no_overflow = "document.querySelector('#content').scrollWidth <= document.querySelector('#content').clientWidth + 1"
    assert page.evaluate(no_overflow)
    screenshot(page, "admin-overview")
    page.click("[data-tile=webhooks] .figure a")
    page.wait_for_url("**/webhookdelivery/?state=failing")
    assert page.locator("#result_list tbody tr").count() == 1 and "HTTP 503" in page.inner_text("#result_list")
    assert violations == [], violations


def test_support_sees_rounds_and_protected_players_but_no_revenue(page, violations, django_user_model, casino_history):
    _, device = staff_member(django_user_model, "sam", SUPPORT)
    sign_in(page, "sam", device)
    body = page.inner_text("#content-main")
    assert "awaiting a decision" in body.lower() and "players protected now" in body.lower() and "Classic EUR" in body
    for hidden in ("ggr", "staked", "€", "rtp", "webhooks", "ledger verification", "all reports"):
        assert hidden not in body.lower(), hidden
    assert page.locator("svg.chart").count() == 1  # rounds per day only
    assert page.request.get("/admin/reports/ggr/").status == 403
    assert violations == [], violations


def test_the_rounds_list_fits_1280_px_with_short_ids_and_a_round_reads_in_words(
    page, violations, django_user_model, casino_history
):
    _, device = staff_member(django_user_model, "olive", OPERATOR)
    sign_in(page, "olive", device, next_path="/admin/casino/round/")
    results = page.locator("#result_list")
    screenshot(page, "admin-rounds")
    page.screenshot(path=SCREENSHOTS / "admin-rounds-top-desktop.png")  # what the first screen shows
    fits = "(() => { const t = document.querySelector('#result_list'); const box = t.closest('.results');"
    fits += " return t.scrollWidth <= box.clientWidth + 1; })()"
    assert page.evaluate(fits), "the rounds table is wider than its box: columns are cut"
    first_id = results.locator("tbody tr").first.locator(".short-id")
    assert len(first_id.inner_text()) == 8 and len(first_id.get_attribute("title")) == 36
    row_height = results.locator("tbody tr").first.bounding_box()["height"]
    assert row_height < 40, f"a row takes {row_height} px: something wraps"
    text = results.inner_text()
    assert "war_lose" not in text and "awaiting_decision" not in text and re.search(r"€\d+\.\d\d", text)
    round_ = Round.objects.filter(decision="war").first()
    page.goto(f"/admin/casino/round/{round_.id}/change/")
    body = page.inner_text("#content-main")
    assert str(round_.id) in body  # the whole id on the page
    assert "Go to war, by the player" in body and "Tie bet pays" in body and "Decks" in body
    assert '{"' not in body and "war_" not in body  # no raw JSON, no codes
    assert page.locator("table.detail-table").count() >= 3  # bets, rules, ledger entries
    screenshot(page, "admin-round-recall")
    assert violations == [], violations


MOMENT_EN = r"\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d\d:\d\d:\d\d UTC"


@pytest.fixture
def few_tie_bets():
    """Twenty rounds with a €1 tie bet, the first a tie (10 to 1, then a war), the rest no tie."""
    from casino.services.rounds import round_decide, round_place
    from tests.browser import give_seed
    from tests.web.test_table import seed_dealing

    table = TableFactory(name="Tie EUR", min_bet=100, max_bet=50_000, bet_step=100, max_tie_bet=5_000)
    player = make_player(balance=1_000_000, username="tiebettor")
    give_seed(player, seed_dealing("tie>win", *[lambda c: c.player.rank != c.dealer.rank] * 19))
    actor = Actor.player(player)
    first = round_place(player=player, table_id=table.pk, main_bet=100, tie_bet=100, actor=actor)
    round_decide(player=player, round_id=first.id, action="war", actor=actor)
    for _ in range(19):
        round_place(player=player, table_id=table.pk, main_bet=100, tie_bet=100, actor=actor)
    return Round.objects.get(pk=first.pk)


def test_the_back_office_writes_every_moment_one_way_the_rtp_interval_stays_possible_and_burned_cards_are_cards(
    page, violations, django_user_model, few_tie_bets
):
    _, device = staff_member(django_user_model, "olive", OPERATOR)
    sign_in(page, "olive", device, next_path="/admin/reports/rtp/")
    rows = {
        row[2]: row
        for row in page.eval_on_selector_all(
            "table.figures tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText))"
        )
    }
    low, high = (float(x.replace(",", "")) for x in re.findall(r"(-?[\d,.]+)\s%", rows["tie"][7]))
    assert 0 <= low < 55 < high <= 1_100, rows["tie"]  # one win in twenty tie bets: 55 %, never below 0 %
    main = [float(x) for x in re.findall(r"(-?[\d.]+)\s%", rows["main"][7])]
    assert -100 <= main[0] <= main[1] <= 200, rows["main"]
    screenshot(page, "admin-rtp-report")
    page.goto(f"/admin/casino/round/{few_tie_bets.id}/change/")
    body = page.inner_text("#content-main")
    burned = page.evaluate("""() => [...document.querySelectorAll('.field-cards div')]
      .filter((d) => d.querySelector('strong')?.textContent === 'Burned').map((d) => d.querySelectorAll('.playing-card').length)""")
    assert burned == [3] and not re.search(r"\b(?:[2-9TJQKA][SHDC] ){2}[2-9TJQKA][SHDC]\b", body)
    assert re.search(f"placed\\s+{MOMENT_EN}", body), body  # the round's timeline
    assert re.search(f"Go to war, by the player at {MOMENT_EN}", body), body
    page.goto("/admin/casino/round/")
    placed = page.locator("#result_list tbody tr td.field-created").first.inner_text()
    assert re.fullmatch(MOMENT_EN, placed), placed
    page.goto("/admin/")
    assert re.search(f"Figures at {MOMENT_EN}\\.", page.inner_text("#content-main"))
    page.goto("/admin/core/auditevent/")
    first = page.locator("#result_list tbody tr").first.locator("th, td").first.inner_text()
    assert re.fullmatch(MOMENT_EN, first), first
    assert violations == [], violations


def test_a_wrong_code_says_how_long_to_wait_and_then_the_right_code_signs_in(page, django_user_model):
    import time

    from tests.core.test_admin_site import wrong

    _, device = staff_member(django_user_model, "olive", OPERATOR)
    page.goto("/admin/login/?next=/admin/")
    page.fill("#id_username", "olive")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_otp_token", wrong(device))
    page.click("input[type=submit]")
    said = page.inner_text(".errornote")
    assert said.endswith("Wait 1 second before the next try."), said
    screenshot(page, "admin-sign-in-wait")
    time.sleep(1.2)
    page.fill("#id_password", PASSWORD)
    page.fill("#id_otp_token", code(device))
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
