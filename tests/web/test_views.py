"""The pages of the web front end, through Django's test client (the browser tests play them)."""

import pytest
from django.urls import reverse

from tests.factories import TableFactory, make_player

pytestmark = pytest.mark.django_db


def test_lobby_lists_open_tables_with_limits_and_exact_house_edge(client):
    TableFactory(name="Open EUR", min_bet=100, max_bet=50_000)
    TableFactory(name="Closed EUR", is_open=False)
    page = client.get("/").content.decode()
    assert "Open EUR" in page and "Closed EUR" not in page
    assert "€1.00 to €500.00" in page
    assert "2.8771\u00a0%" in page and "3.6977\u00a0%" in page and "18.6495\u00a0%" in page


def test_api_schema_and_docs_are_served(client):
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200


@pytest.mark.parametrize("name", ["web:lobby", "web:rules", "web:war", "web:signin", "web:signup"])
def test_public_pages_render_for_everyone(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    assert b"<main" in response.content


@pytest.mark.parametrize("name", ["web:wallet", "web:history", "web:fairness"])
def test_player_pages_send_strangers_to_sign_in(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302 and response.url.startswith(reverse("web:signin"))


def test_a_staff_account_is_told_it_does_not_play(client, django_user_model):
    staff = django_user_model.objects.create_user(username="op", password="x", is_staff=True)
    client.force_login(staff)
    response = client.get(reverse("web:wallet"), follow=True)
    assert "staff account" in response.content.decode()


CONFIRMED = {"age_confirmed": "on", "terms_accepted": "on"}  # the sign-up form's two boxes, ticked


def test_sign_up_opens_a_wallet_and_signs_in(client):
    response = client.post(
        reverse("web:signup"), {"username": "dora", "password": "a-long-enough-passphrase", **CONFIRMED}
    )
    assert response.status_code == 302 and response.url == reverse("web:wallet")
    page = client.get(reverse("web:wallet")).content.decode()
    assert "dora" in page and "€0.00" in page


def test_the_web_sign_up_needs_both_confirmations(client):
    from accounts.models import Player

    for missing in ("age_confirmed", "terms_accepted"):
        body = {"username": "kim", "password": "a-long-enough-passphrase", **CONFIRMED}
        del body[missing]
        page = client.post(reverse("web:signup"), body)
        assert page.status_code == 200 and not Player.objects.filter(user__username="kim").exists()
        assert f'id="id_{missing}-error"' in page.content.decode()


def test_sign_up_refuses_a_weak_password_and_a_taken_name_with_the_reason(client):
    make_player(username="taken")
    weak = client.post(reverse("web:signup"), {"username": "erin", "password": "123", **CONFIRMED}).content.decode()
    assert "too short" in weak or "too common" in weak
    taken = client.post(
        reverse("web:signup"), {"username": "taken", "password": "a-long-enough-passphrase", **CONFIRMED}
    )
    assert "taken" in taken.content.decode() and taken.status_code == 200


def test_sign_in_with_wrong_password_says_so_and_next_is_kept_on_this_site(client):
    player = make_player(username="fay")
    player.user.set_password("right-password-here")
    player.user.save()
    wrong = client.post(reverse("web:signin"), {"username": "fay", "password": "nope"})
    assert "do not match" in wrong.content.decode()
    elsewhere = client.post(
        reverse("web:signin"), {"username": "fay", "password": "right-password-here", "next": "https://evil.example/"}
    )
    assert elsewhere.url == reverse("web:lobby")


def test_sign_out_needs_a_post(client):
    player = make_player()
    client.force_login(player.user)
    assert client.get(reverse("web:signout")).status_code == 405
    assert client.post(reverse("web:signout")).status_code == 302
    assert client.get(reverse("web:wallet")).status_code == 302


def test_top_up_adds_play_money_once_per_form(client, play_money):
    from ledger.selectors import player_wallet_summary

    player = make_player()
    client.force_login(player.user)
    form = {"amount": "10000", "key": "a" * 32}
    client.post(reverse("web:wallet-top-up"), form)
    client.post(reverse("web:wallet-top-up"), form)  # the same form sent twice: one top-up
    assert player_wallet_summary(player=player)["balance"] == 10_000
    client.post(reverse("web:wallet-top-up"), {"amount": "12345", "key": "b" * 32})
    assert player_wallet_summary(player=player)["balance"] == 10_000


def test_history_and_round_recall_show_only_the_players_own_rounds(client, table):
    from casino.services.rounds import round_place
    from core.actors import Actor

    player, other = make_player(balance=10_000), make_player(balance=10_000)
    mine = round_place(player=player, table_id=table.pk, main_bet=100, tie_bet=0, actor=Actor.player(player))
    theirs = round_place(player=other, table_id=table.pk, main_bet=100, tie_bet=0, actor=Actor.player(other))
    client.force_login(player.user)
    history = client.get(reverse("web:history")).content.decode()
    assert str(mine.id) in history and str(theirs.id) not in history
    recall = client.get(reverse("web:round", args=[mine.id])).content.decode()
    assert mine.seed_pair.server_seed_hash in recall and mine.seed_pair.server_seed not in recall
    assert client.get(reverse("web:round", args=[theirs.id])).status_code == 404
    assert client.get(reverse("web:round", args=["not-a-round"])).status_code == 404


def test_a_closed_table_is_not_played(client):
    player = make_player()
    client.force_login(player.user)
    closed = TableFactory(is_open=False)
    assert client.get(reverse("web:table", args=[closed.pk])).status_code == 404


def test_the_table_page_carries_a_pending_decision(client, table):
    from casino.models import Round

    player = make_player(balance=10_000)
    client.force_login(player.user)
    page = client.get(reverse("web:table", args=[table.pk])).content.decode()
    assert 'data-pending-round=""' in page
    from tests.browser import give_seed, seed_with_rounds

    give_seed(player, seed_with_rounds([True]))
    from casino.services.rounds import round_place
    from core.actors import Actor

    round_place(player=player, table_id=table.pk, main_bet=100, tie_bet=0, actor=Actor.player(player))
    pending = Round.objects.get(player=player)
    assert pending.status == "awaiting_decision"
    page = client.get(reverse("web:table", args=[table.pk])).content.decode()
    assert f'data-pending-round="{pending.id}"' in page


@pytest.mark.parametrize("page", ["table", "history", "round"])
def test_a_page_of_the_players_rounds_takes_overdue_decisions_first(client, table, page):
    """As the API's reads do (issue #16 item 6): a deadline holds even when no job runs."""
    from datetime import timedelta

    from django.utils import timezone

    from casino.models import Round
    from casino.services.rounds import round_place
    from core.actors import Actor
    from tests.casino.helpers import set_next_round

    player = make_player(balance=10_000)
    set_next_round(player, tie=True)
    pending = round_place(player=player, table_id=table.pk, main_bet=100, tie_bet=0, actor=Actor.player(player))
    Round.objects.filter(pk=pending.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    client.force_login(player.user)
    response = client.get(
        reverse(f"web:{page}", args={"table": [table.pk], "history": [], "round": [pending.id]}[page])
    )
    assert response.status_code == 200
    decided = Round.objects.get(pk=pending.pk)
    assert decided.status != "awaiting_decision" and decided.decision_timed_out
    if page == "table":
        assert 'data-pending-round=""' in response.content.decode()  # no decision left to offer


def test_a_player_sets_limits_a_reality_check_and_a_break_from_the_play_safe_page(client):
    from protection.models import Exclusion, PlayerLimit, RealityCheck

    player = make_player()
    client.force_login(player.user)
    assert client.get(reverse("web:protection")).status_code == 200
    change = reverse("web:protection-change")
    client.post(change, {"change": "limit", "kind": "loss", "period": "week", "amount": "1,234.50"})
    assert PlayerLimit.objects.get(player=player).amount == 123_450
    page = client.get(reverse("web:protection")).content.decode()
    assert "€1,234.50" in page and "Net loss" in page
    bad = client.post(change, {"change": "limit", "kind": "loss", "period": "week", "amount": "lots"}, follow=True)
    assert "for example 50" in bad.content.decode() and PlayerLimit.objects.count() == 1
    raised = client.post(change, {"change": "limit", "kind": "loss", "period": "week", "amount": "2000"}, follow=True)
    assert "after 24 hours" in raised.content.decode()
    client.post(change, {"change": "reality_check", "interval": "30"})
    assert RealityCheck.objects.get(player=player).interval_minutes == 30
    unconfirmed = client.post(change, {"change": "timeout", "days": "7"}, follow=True)
    assert "confirm" in unconfirmed.content.decode() and not Exclusion.objects.exists()
    client.post(change, {"change": "timeout", "days": "7", "confirm": "1"})
    assert Exclusion.objects.get(player=player).kind == "timeout"
    assert client.get(reverse("web:wallet")).status_code == 302  # signed out


def test_sign_in_slows_down_guessing_per_address_and_name(client):
    from accounts.services import SIGN_IN_FAILURES_ALLOWED

    player = make_player(username="gina")
    player.user.set_password("the-right-passphrase")
    player.user.save()
    for _ in range(SIGN_IN_FAILURES_ALLOWED):
        assert client.post(reverse("web:signin"), {"username": "gina", "password": "guess"}).status_code == 200
    blocked = client.post(reverse("web:signin"), {"username": "gina", "password": "the-right-passphrase"})
    assert blocked.status_code == 429 and "Too many failed attempts" in blocked.content.decode()
    assert client.get(reverse("web:wallet")).status_code == 302  # not signed in
    other = client.post(reverse("web:signin"), {"username": "someone-else", "password": "x"})
    assert other.status_code == 200  # another name from the same address is not blocked


def test_a_successful_sign_in_clears_the_count(client):
    from accounts.services import SIGN_IN_FAILURES_ALLOWED

    player = make_player(username="hana")
    player.user.set_password("the-right-passphrase")
    player.user.save()
    for _ in range(SIGN_IN_FAILURES_ALLOWED - 1):
        client.post(reverse("web:signin"), {"username": "hana", "password": "guess"})
    assert (
        client.post(reverse("web:signin"), {"username": "hana", "password": "the-right-passphrase"}).status_code == 302
    )
    client.post(reverse("web:signout"))
    for _ in range(SIGN_IN_FAILURES_ALLOWED - 1):
        assert client.post(reverse("web:signin"), {"username": "hana", "password": "guess"}).status_code == 200


def test_sign_ups_from_one_address_are_limited(client):
    from accounts.services import SIGN_UPS_ALLOWED

    for i in range(SIGN_UPS_ALLOWED):
        client.post(reverse("web:signup"), {"username": f"new{i}", "password": "a-long-enough-passphrase", **CONFIRMED})
        client.post(reverse("web:signout"))
    refused = client.post(
        reverse("web:signup"), {"username": "one-more", "password": "a-long-enough-passphrase", **CONFIRMED}
    )
    assert refused.status_code == 429


def test_the_felt_prints_the_tables_own_rules_in_the_players_language(client):
    player = make_player(balance=10_000)
    client.force_login(player.user)
    eight = TableFactory(tie_pays=8, tie_after_tie_bonus=True, min_bet=500, max_bet=20_000, max_tie_bet=2_000)
    page = client.get(reverse("web:table", args=[eight.pk])).content.decode()
    assert "<li>Tie pays 8 to 1</li>" in page and "<li>A tie in the war pays a bonus</li>" in page
    assert "Bets €5.00 to €200.00 · tie up to €20.00" in page and "Surrender returns half" in page
    no_tie = TableFactory(max_tie_bet=0)
    page = client.get(reverse("web:table", args=[no_tie.pk])).content.decode()
    assert "Tie pays" not in page and "tie up to" not in page and "pays a bonus" not in page
    spanish = client.get(reverse("web:table", args=[eight.pk]), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "El empate paga 8 a 1" in spanish and "La rendición devuelve la mitad" in spanish


def test_the_table_page_offers_the_chips_that_fit_the_table(client):
    import json
    import re

    player = make_player(balance=10_000)
    client.force_login(player.user)
    table = TableFactory(min_bet=1_000, max_bet=500_000, bet_step=500)
    page = client.get(reverse("web:table", args=[table.pk])).content.decode()
    data = json.loads(re.search(r'<script id="table-data" type="application/json">(.*?)</script>', page)[1])
    assert data["chips"] == [1_000, 5_000, 25_000, 100_000, 500_000]


def test_a_limit_of_nothing_or_of_too_much_is_refused_in_the_players_words(client):
    from protection.models import PlayerLimit

    player = make_player()
    client.force_login(player.user)
    change = reverse("web:protection-change")
    zero = client.post(change, {"change": "limit", "kind": "loss", "period": "day", "amount": "0"}, follow=True)
    assert "A limit must be more than zero" in zero.content.decode()
    huge = client.post(
        change, {"change": "limit", "kind": "loss", "period": "day", "amount": "99999999999999"}, follow=True
    )
    text = huge.content.decode()
    assert "A limit can be at most €10,000,000,000,000.00." in text and "minor units" not in text
    assert not PlayerLimit.objects.exists()


def test_a_limit_raised_later_shows_when_it_applies_as_people_write_a_date(client):
    player = make_player()
    client.force_login(player.user)
    change = reverse("web:protection-change")
    client.post(change, {"change": "limit", "kind": "loss", "period": "day", "amount": "50"})
    client.post(change, {"change": "limit", "kind": "loss", "period": "day", "amount": "500"})
    page = client.get(reverse("web:protection")).content.decode()
    import re

    assert re.search(r"€500\.00 from \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC", page)
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:", page)
    portuguese = client.get(reverse("web:protection"), HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert re.search(r"500,00\u00a0€ a partir de \d\d/\d\d/\d{4} \d\d:\d\d:\d\d UTC", portuguese)


def test_the_war_games_page_names_each_variant_and_offers_only_its_options(client):
    import json
    import re

    page = client.get(reverse("web:war")).content.decode()
    presets = {p["name"]: p for p in json.loads(re.search(r'id="war-presets"[^>]*>(.*?)</script>', page)[1])}
    assert presets["one_down"]["title"] == "One Down War" and presets["pyanitsa"]["title"] == "P'yanitsa (the Drunkard)"
    assert "tie" not in presets["standard"]["options"] and "objective" not in presets["standard"]["options"]
    assert {"tie", "objective"} <= set(presets["pyanitsa"]["options"]) and "down" not in presets["pyanitsa"]["options"]
    assert "down" not in presets["peace"]["options"] and "jokers" not in presets["tod_und_leben"]["options"]
    assert "gather" not in presets["steal"]["options"] and "down" in presets["steal"]["options"]
