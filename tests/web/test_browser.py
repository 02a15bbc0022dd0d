"""The web front end in real Chromium: sign up, top up, play to a tie, war, surrender, settle,
verify on the fairness page, War games to the end, a Steal War steal, the reality check."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from tests.browser import PHONE, give_seed, screenshot, seed_with_rounds, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "correct-horse-battery-staple"


def euros(text: str) -> int:
    """Minor units from an English money text such as "€1,234.50"."""
    match = re.search(r"(-?)€([\d,]+)\.(\d\d)", text)
    assert match, text
    return (-1 if match[1] else 1) * (int(match[2].replace(",", "")) * 100 + int(match[3]))


def wallet_balance(player) -> int:
    from ledger.selectors import player_wallet_summary

    return player_wallet_summary(player=player)["balance"]


@pytest.fixture
def open_table(transactional_db):
    from tests.factories import TableFactory

    return TableFactory(name="Browser EUR", min_bet=100, max_bet=50_000, bet_step=100, max_tie_bet=5_000)


@pytest.fixture
def web_player(transactional_db):
    from tests.factories import make_player

    player = make_player(balance=10_000, username="carla")
    player.user.set_password(PASSWORD)
    player.user.save()
    return player


def test_sign_up_top_up_play_to_a_tie_go_to_war_and_surrender(page, open_table, play_money):
    from accounts.models import Player
    from casino.models import Round

    page.goto("/")
    screenshot(page, "lobby")
    page.click("text=Sign up")
    page.fill("#id_username", "newcomer")
    page.fill("#id_password", PASSWORD)
    page.check("#id_age_confirmed")
    page.check("#id_terms_accepted")
    page.click("main button[type=submit]")
    page.wait_for_url("**/wallet/")
    assert euros(page.inner_text("#header-balance")) == 0

    page.click("button[name=amount][value='10000']")
    page.wait_for_selector(".messages .success")
    assert euros(page.inner_text("#header-balance")) == 10_000
    screenshot(page, "wallet")

    player = Player.objects.get(user__username="newcomer")
    give_seed(player, seed_with_rounds([False, True, True]))

    page.goto(f"/tables/{open_table.pk}/")
    # Round 0 is not a tie: it resolves and settles; the balance follows without reloading.
    page.click("#deal")
    page.wait_for_function("() => document.getElementById('outcome').textContent.includes('Net')")
    first = Round.objects.get(player=player, nonce=0)
    page.wait_for_function(
        f"() => document.getElementById('header-balance').textContent.includes('{_money(10_000 + first.net)}')"
    )
    # Round 1 is a tie: the decision waits, also after a reload.
    page.click("#deal")
    page.wait_for_selector("#decision:not([hidden])")
    assert "worth" in page.inner_text("#war")
    page.reload()
    page.wait_for_selector("#decision:not([hidden])")
    screenshot(page, "table-tie")
    page.click("#war")
    page.wait_for_selector("#decision", state="hidden")
    war_round = Round.objects.get(player=player, nonce=1)
    assert war_round.decision == "war" and war_round.war_player_card
    after_war = 10_000 + first.net + war_round.net
    page.wait_for_function(
        f"() => document.getElementById('header-balance').textContent.includes('{_money(after_war)}')"
    )
    assert page.locator("#player-cards .flip").count() == 2
    # Round 2 is a tie too: surrender with the keyboard.
    page.keyboard.press("d")
    page.wait_for_selector("#decision:not([hidden])")
    page.keyboard.press("s")
    page.wait_for_function("() => document.getElementById('outcome').textContent.includes('surrendered')")
    surrendered = Round.objects.get(player=player, nonce=2)
    assert surrendered.outcome == "surrender" and surrendered.net == -surrendered.main_bet // 2
    page.wait_for_function(
        f"() => document.getElementById('header-balance').textContent.includes('{_money(after_war + surrendered.net)}')"
    )
    screenshot(page, "table")
    assert wallet_balance(player) == after_war + surrendered.net

    page.goto("/history/")
    assert page.locator("tbody tr").count() == 3
    screenshot(page, "history")


def _money(minor: int) -> str:
    from ledger.money import format_money

    return format_money(minor, "EUR", language="en")


def test_a_refused_bet_says_why_and_changes_nothing(page, open_table, web_player):
    from casino.models import Round

    sign_in(page, "carla", PASSWORD, f"/tables/{open_table.pk}/")
    page.click("#spot-main")
    for _ in range(4):
        page.click(".chip[data-value='2500']")  # 4 x €25 on top of the €1 minimum: more than the €100 held
    page.click("#deal")
    page.wait_for_function("() => document.getElementById('message').textContent.length > 0")
    assert page.inner_text("#message").startswith("Not enough money: your wallet holds €100.00.")
    assert Round.objects.count() == 0
    assert euros(page.inner_text("#header-balance")) == 10_000
    assert euros(page.inner_text("#main-amount")) == 10_100  # the bet is kept for the player to lower


def test_verify_a_round_on_the_fairness_page(page, open_table, web_player):
    from casino.models import Round

    give_seed(web_player, seed_with_rounds([True]))
    sign_in(page, "carla", PASSWORD, f"/tables/{open_table.pk}/")
    page.click("#deal")
    page.wait_for_selector("#decision:not([hidden])")
    page.click("#war")
    page.wait_for_selector("#decision", state="hidden")
    round_ = Round.objects.get(player=web_player)

    page.goto(f"/fairness/?round={round_.id}")
    page.wait_for_selector("#verify-output p")
    assert "still secret" in page.inner_text("#verify-output")
    page.fill("#client-seed", "my own words")
    page.click("#rotate-form button")
    page.wait_for_function("() => document.getElementById('previous-seed').textContent.length == 64")
    assert page.inner_text("#current-client") == "my own words"
    rotated = page.inner_text("#rotate-message")
    assert "“Previous seed pair”" in rotated and "below" not in rotated  # the panel is beside it on a desktop
    page.click("#verify-form button")
    page.wait_for_selector("#verdict")
    assert page.inner_text("#verdict").startswith("Verified")
    assert page.locator("#verify-output .verify-result.ok").count() == 4  # hash, first cards, war cards, verdict
    assert page.inner_text("#rotate-message") == ""  # the rotation's message went with the next action
    screenshot(page, "fairness")


def test_play_a_war_game_to_its_end(page, transactional_db):
    page.goto("/war/")
    names = page.eval_on_selector_all("#preset option", "options => options.map(o => o.textContent)")
    assert "Standard War" in names and "One Down War" in names and "Tod und Leben" in names
    assert not {"one_down", "tod_und_leben", "pyanitsa"} & set(names)
    assert page.is_hidden("#opt-tie") and page.is_hidden("#opt-objective") and page.is_visible("#opt-down")
    page.select_option("#preset", "pyanitsa")
    assert page.is_visible("#opt-tie") and page.is_visible("#opt-objective") and page.is_hidden("#opt-down")
    page.select_option("#seats", "2")
    assert page.is_hidden("#opt-war_participants")  # two seats always fight a war together
    page.select_option("#seats", "3")
    assert page.is_visible("#opt-war_participants")
    page.select_option("#preset", "classic")
    page.fill("#server-seed", "ab" * 32)
    page.click("#war-form button[type=submit]")
    page.wait_for_selector("#viewer:not([hidden])")
    page.click("[data-control=step]")
    assert "Battle 1" in page.inner_text("#battle-label")
    assert page.locator("#seat-panels .seat .card").count() >= 2
    page.click("[data-control=end]")
    result = page.inner_text("#result")
    assert "battles" in result and ("wins" in result or "No winner" in result)
    # over a thousand battles: the answer came in pages (`page.next`), all read before the replay
    battles = int(re.search(r"after ([0-9,]+) battles", result).group(1).replace(",", ""))
    assert battles > 1_000 and page.eval_on_selector("#scrub", "scrub => Number(scrub.max)") == battles
    assert page.locator("#chart polyline").count() == 2
    screenshot(page, "war")


def test_a_person_steals_a_pile_in_steal_war(page, web_player):
    import hashlib

    from casino.engine.errors import DecisionRequired
    from casino.engine.war import DefaultBot, ScriptedAgent, StealView, play_war

    def first_question(seed):
        try:
            play_war("steal", seed=seed, client_seed="war", agents=[ScriptedAgent(), DefaultBot()])
        except DecisionRequired as pause:
            return pause.view
        return None

    seed = next(
        s
        for i in range(5_000)
        if isinstance(first_question(s := hashlib.sha256(f"steal-{i}".encode()).hexdigest()), StealView)
    )
    sign_in(page, "carla", PASSWORD, "/war/")
    page.select_option("#preset", "steal")
    page.select_option("#human-seat", "0")
    page.fill("#server-seed", seed)
    page.click("#war-form button[type=submit]")
    page.wait_for_selector("#question:not([hidden]) [data-steal='1']")
    screenshot(page, "steal-war")
    page.click("#question [data-steal='1']")
    page.wait_for_function("() => !document.querySelector('#question button[disabled]')")
    page.click("[data-control=start]")
    lines = []
    for _ in range(12):  # the person's own seat is "you" in the log, never "Seat 1 (you) turns its..."
        page.click("[data-control=step]")
        lines += page.eval_on_selector_all("#log li", "items => items.map(i => i.textContent)")
    assert any(line.startswith("You ") for line in lines), lines
    assert not any(re.search(r"\(you\) (turns|lays|takes|has|is|steals|protects|scores)", line) for line in lines)

    from casino.models import Match
    from casino.selectors import match_representation
    from casino.services.matches import match_replay

    match = Match.objects.get(player=web_player)
    assert match.steals == [1]
    events = match_representation(match, match_replay(match), page_url=str).events
    assert any(e.type == "steal" and e.seat == 0 and e.seats == [1] for e in events)


def test_reality_check_shows_the_session_and_can_stop_it(page, open_table, web_player):
    from core import clock
    from protection.models import RealityCheck

    sign_in(page, "carla", PASSWORD, "/")
    RealityCheck.objects.filter(player=web_player).update(
        interval_minutes=1, session_started_at=clock.now() - timedelta(seconds=59)
    )
    page.goto(f"/tables/{open_table.pk}/")
    page.wait_for_selector("#reality-check[open]", timeout=10_000)
    assert "You have been playing for" in page.inner_text("#reality-check")
    assert euros(page.inner_text("#reality-check [data-field=net]")) == 0
    page.set_viewport_size(PHONE)
    page.click("#reality-check [data-action=stop]")
    page.wait_for_url(re.compile(r"^https?://[^/]+/$"))
    assert page.locator("text=Sign in").count() >= 1


@pytest.mark.parametrize(
    ("locale", "heading", "money", "war_label"),
    [
        ("en-US", "Open tables", "€1.00", "The deal"),
        ("pt-BR", "Mesas abertas", "1,00\u00a0€", "A distribuição"),
        ("es-ES", "Mesas abiertas", "1,00\u00a0€", "El reparto"),
    ],
)
def test_the_pages_speak_the_browsers_language(
    chromium, live_server, settings, open_table, locale, heading, money, war_label
):
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    context = chromium.new_context(base_url=live_server.url, locale=locale, viewport=PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto("/")
    assert page.inner_text("h1") == heading and money in page.inner_text(".table-card")
    page.goto("/war/")
    page.click("#war-form button[type=submit]")
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.inner_text("#battle-label") == war_label  # the scripts' texts come from the same catalogue
    screenshot(page, f"war-{locale}")
    with page.expect_navigation():
        page.select_option("#language", "es" if locale != "es-ES" else "pt-br")
    assert page.inner_text("h1") == ("Juegos de Guerra" if locale != "es-ES" else "Jogos de Guerra")
    context.close()
    assert not errors


@pytest.mark.parametrize(
    ("locale", "lines"),
    [
        ("es-ES", ["Pago de la ronda", "Apuesta puesta en juego", "Depósito"]),
        ("pt-BR", ["Pagamento da rodada", "Aposta posta em jogo", "Depósito"]),
    ],
)
def test_the_wallet_names_its_lines_in_the_players_language(
    chromium, live_server, settings, open_table, web_player, locale, lines
):
    from casino.services.rounds import round_place
    from core.actors import Actor
    from tests.web.test_table import seed_dealing

    give_seed(web_player, seed_dealing("win"))  # a stake, then a payout
    round_place(player=web_player, table_id=open_table.pk, main_bet=100, actor=Actor.player(web_player))
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    context = chromium.new_context(base_url=live_server.url, locale=locale, viewport=PHONE)
    page = context.new_page()
    sign_in(page, "carla", PASSWORD, "/wallet/")
    shown = page.eval_on_selector_all("table.data tbody tr td:nth-child(2)", "cells => cells.map(c => c.innerText)")
    assert shown[-1] == lines[-1] and set(lines[:2]) <= set(shown), shown
    assert not {"Stake into play", "Round settlement", "Round payout", "Deposit"} & set(shown)
    screenshot(page, f"wallet-{locale}")
    context.close()


def test_sign_up_asks_for_the_minimum_age_and_the_terms_and_records_when(page, settings, transactional_db):
    """A regulated casino's sign-up: both boxes required (the age is the operator's MINIMUM_AGE),
    the terms a link away, and the account records what was confirmed, when (the play-safe page
    shows it)."""
    from accounts.models import Player
    from accounts.services import TERMS_VERSION
    from core import clock

    settings.MINIMUM_AGE = 21
    page.goto("/signup/")
    assert (
        page.inner_text("label[for=id_age_confirmed]") == "I am 21 or older, and gambling is legal for me where I live."
    )
    page.fill("#id_username", "careful")
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    errors = page.inner_text("main form")
    assert "Confirm that you are old enough to play" in errors and "Accept the terms of play" in errors
    assert not Player.objects.filter(user__username="careful").exists()
    screenshot(page, "signup-refused")
    with page.expect_popup() as popup:
        page.click("label[for=id_terms_accepted] a")
    terms = popup.value
    terms.wait_for_load_state()
    assert "You must be 21 or older" in terms.inner_text("main") and TERMS_VERSION in terms.inner_text("main")
    terms.close()
    before = clock.now()
    page.fill("#id_password", PASSWORD)
    page.check("#id_age_confirmed")
    page.check("#id_terms_accepted")
    page.click("main button[type=submit]")
    page.wait_for_url("**/wallet/")
    player = Player.objects.get(user__username="careful")
    assert player.age_confirmed_minimum == 21 and player.terms_version == TERMS_VERSION
    assert before <= player.age_confirmed_at == player.terms_accepted_at <= clock.now()
    page.goto("/play-safe/")
    confirmed = page.inner_text("#confirmed")
    assert "That you are 21 or older:" in confirmed and f"version {TERMS_VERSION}:" in confirmed


# One way to write a moment per language, with the time zone (config/formats; app.js mirrors it).
MOMENT = {
    "en-US": r"\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}, \d\d:\d\d:\d\d UTC",
    "pt-BR": r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d UTC",
    "es-ES": r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d UTC",
}
OTHER_WAYS = r"\b[ap]\.m\.|\d{4}-\d\d-\d\d|\(UTC\)|\b\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d\d(?!:)"


@pytest.mark.parametrize("locale", MOMENT)
def test_every_moment_a_player_reads_is_written_one_way_per_language_with_the_time_zone(
    chromium, live_server, settings, open_table, web_player, locale
):
    from casino.models import Round
    from casino.services.rounds import round_place
    from core.actors import Actor
    from protection.services import limit_set
    from tests.web.test_table import seed_dealing

    give_seed(web_player, seed_dealing("win"))
    round_place(player=web_player, table_id=open_table.pk, main_bet=100, actor=Actor.player(web_player))
    limit_set(player=web_player, kind="loss", period="day", amount=1_000, actor=Actor.player(web_player))
    limit_set(
        player=web_player, kind="loss", period="day", amount=5_000, actor=Actor.player(web_player)
    )  # from tomorrow
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    context = chromium.new_context(base_url=live_server.url, locale=locale, viewport=PHONE)
    page = context.new_page()
    sign_in(page, "carla", PASSWORD, "/history/")
    round_ = Round.objects.get(player=web_player)
    for path, where in (
        ("/history/", "tbody td:first-child"),
        (f"/history/{round_.id}/", "main"),
        ("/wallet/", "tbody td:first-child"),
        ("/play-safe/", "main"),
    ):
        page.goto(path)
        text = " ".join(page.locator(where).all_inner_texts())
        assert re.search(MOMENT[locale], text), (path, text)
        assert not re.search(OTHER_WAYS, text), (path, text)
    context.close()


def test_a_rounds_recall_shows_its_burned_cards_as_cards(page, open_table, web_player):
    from casino.services.rounds import round_decide, round_place
    from core.actors import Actor
    from tests.web.test_table import seed_dealing

    give_seed(web_player, seed_dealing("tie>lose"))
    actor = Actor.player(web_player)
    placed = round_place(player=web_player, table_id=open_table.pk, main_bet=100, actor=actor)
    war = round_decide(player=web_player, round_id=placed.id, action="war", actor=actor)
    sign_in(page, "carla", PASSWORD, f"/history/{war.id}/")
    burned = page.locator("dd.burned .card")
    assert burned.count() == 3
    assert [c.get_attribute("title") for c in burned.all()] == war.burned.split()
    assert war.burned not in page.inner_text("main")  # no raw codes ("4H 8D 2D")
    screenshot(page, "round-recall")
