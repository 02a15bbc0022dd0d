import pytest

from accounts.services import partner_create
from casino.engine import Action
from casino.engine.casino_war import Outcome
from casino.models import RoundDecision, RoundOutcome, WebhookDelivery
from casino.services.fairness import seed_pair_active, seed_pair_rotate
from casino.services.rounds import round_decide, round_place
from core.actors import Actor
from core.models import AuditEvent
from tests.casino.helpers import set_next_round
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_round_recall_shows_cards_decision_ledger_and_verification(
    admin_client, table, django_capture_on_commit_callbacks
):
    player = make_player(balance=10_000)
    set_next_round(player, tie=True)
    with django_capture_on_commit_callbacks(execute=True):
        round_ = round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
        round_decide(player=player, round_id=round_.id, action="war", actor=Actor.player(player))
    page = admin_client.get(f"/admin/casino/round/{round_.id}/change/").content.decode()
    assert (
        f'title="{round_.player_card}"' in page
        and "Burned" in page
        and "war card" in page
        and ("♥" in page or "♠" in page or "♦" in page or "♣" in page)
    )
    assert "Stake into play" in page and "Round settlement" in page and "not revealed yet" in page
    # Words and money, never codes, minor units or JSON.
    assert "Go to war, by the player" in page and (
        "Won the war" in page or "Lost the war" in page or "Tie in the war" in page
    )
    assert "€10.00" in page and "War raise" in page and "Tie bet pays" in page and "10 to 1" in page
    assert "war_win" not in page and "war_lose" not in page and '"main":' not in page and '"decks":' not in page
    assert str(round_.id) in page  # the whole id on its page
    seed_pair_rotate(player=player, client_seed=None, actor=Actor.player(player))
    page = admin_client.get(f"/admin/casino/round/{round_.id}/change/").content.decode()
    assert "verified: the revealed seed deals exactly these cards" in page
    assert admin_client.get("/admin/casino/round/add/").status_code == 403


def test_a_table_is_read_only_and_changes_are_proposed(admin_client, table):
    page = admin_client.get(f"/admin/casino/table/{table.pk}/change/").content.decode()
    assert 'name="decks"' not in page and 'name="min_bet"' not in page and "Propose new rules or limits" in page
    assert admin_client.get("/admin/casino/table/add/").status_code == 403


def test_seed_pairs_hide_unrevealed_seeds(admin_client, player):
    pair = seed_pair_active(player=player)
    page = admin_client.get(f"/admin/casino/seedpair/{pair.pk}/change/").content.decode()
    assert pair.server_seed not in page and "secret until the player rotates" in page


def test_audit_log_is_read_only(admin_client, player, table):
    round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
    assert "round.placed" in admin_client.get("/admin/core/auditevent/").content.decode()
    assert admin_client.get("/admin/core/auditevent/add/").status_code == 403


def test_opening_and_closing_tables_is_audited(admin_client, admin_user, table):
    from core.models import AuditEvent

    response = admin_client.post("/admin/casino/table/", {"action": "close_tables", "_selected_action": [table.pk]})
    assert response.status_code == 302
    table.refresh_from_db()
    assert not table.is_open
    event = AuditEvent.objects.get(action="table.closed")
    assert event.actor_id == str(admin_user.pk) and event.object_id == str(table.pk)


def test_the_rounds_list_shows_short_ids_words_and_money(admin_client, table, player):
    round_ = round_place(player=player, table_id=table.pk, main_bet=600, actor=Actor.player(player))
    page = admin_client.get("/admin/casino/round/").content.decode()
    assert f'title="{round_.id}">{str(round_.id)[:8]}<' in page
    assert "€6.00" in page and ">600<" not in page
    rows = page.split("<tbody>")[1].split("</tbody>")[0]
    assert round_.get_status_display() in rows and "awaiting_decision" not in rows and "resolved<" not in rows


def test_a_table_s_limits_are_typed_and_read_as_money(admin_client, table):
    from casino.models import TableChange

    listed = admin_client.get("/admin/casino/table/").content.decode()
    assert "€1.00" in listed and "€1,000.00" in listed  # min and max bet
    page = admin_client.get(f"/admin/casino/tablechange/add/?table={table.pk}").content.decode()
    assert 'name="min_bet" value="1.00"' in page and 'name="max_bet" value="1000.00"' in page
    form = {
        "table": table.pk,
        "name": table.name,
        "currency": "EUR",
        "min_bet": "2.50",
        "max_bet": "1,500.00",
        "bet_step": "0.50",
        "max_tie_bet": "100.00",
        "decks": "6",
        "burn": "3",
        "tie_pays": "10",
        "shuffle": "fresh",
        "penetration": "75",
        "decision_timeout_s": "30",
        "house_rule": "war",
        "reason": "higher stakes",
    }
    response = admin_client.post("/admin/casino/tablechange/add/", form)
    assert response.status_code == 302, response.content.decode()[:3000]
    change = TableChange.objects.get()
    assert (change.min_bet, change.max_bet, change.bet_step, change.max_tie_bet) == (250, 150_000, 50, 10_000)
    response = admin_client.post("/admin/casino/tablechange/add/", {**form, "min_bet": "2.505"})
    assert response.status_code == 200 and "Enter an amount such as 6.00." in response.content.decode()


def test_a_webhook_delivery_shows_its_payload_and_failing_ones_are_one_filter_away(admin_client, player, table):
    round_ = round_place(player=player, table_id=table.pk, main_bet=600, actor=Actor.player(player))
    partner, _ = partner_create(name="Hooked")
    delivery = WebhookDelivery.objects.create(
        partner=partner,
        round=round_,
        payload={"event": "round.settled"},
        next_attempt_at=round_.created_at,
        attempts=2,
        last_status_code=500,
    )
    listed = admin_client.get("/admin/casino/webhookdelivery/?state=failing").content.decode()
    assert str(delivery.id)[:8] in listed and "HTTP 500" in listed
    assert (
        str(delivery.id)[:8] not in admin_client.get("/admin/casino/webhookdelivery/?state=delivered").content.decode()
    )
    page = admin_client.get(f"/admin/casino/webhookdelivery/{delivery.id}/change/").content.decode()
    assert "&quot;event&quot;: &quot;round.settled&quot;" in page


def test_round_words_are_the_engine_s_codes():
    assert set(RoundOutcome.values) == {o.value for o in Outcome}
    assert set(RoundDecision.values) == {a.value for a in Action}


def test_an_audit_event_writes_its_amounts_as_money_of_its_object(admin_client, player, table):
    round_ = round_place(player=player, table_id=table.pk, main_bet=600, tie_bet=100, actor=Actor.player(player))
    event = AuditEvent.objects.get(action="round.placed")
    listed = admin_client.get("/admin/core/auditevent/").content.decode()
    assert f'title="{round_.id}">{str(round_.id)[:8]}<' in listed
    page = admin_client.get(f"/admin/core/auditevent/{event.pk}/change/").content.decode()
    assert "main bet" in page and "€6.00" in page and "€1.00" in page and '"main_bet"' not in page


def test_seed_pair_lists_show_short_hashes(admin_client, player):
    pair = seed_pair_active(player=player)
    listed = admin_client.get("/admin/casino/seedpair/").content.decode()
    assert f'title="{pair.server_seed_hash}">{pair.server_seed_hash[:8]}<' in listed
