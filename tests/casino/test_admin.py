import pytest

from casino.services.fairness import seed_pair_rotate
from casino.services.rounds import round_decide, round_place
from core.actors import Actor
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
    assert "stake" in page and "settlement" in page and "not revealed yet" in page
    seed_pair_rotate(player=player, client_seed=None, actor=Actor.player(player))
    page = admin_client.get(f"/admin/casino/round/{round_.id}/change/").content.decode()
    assert "verified: the revealed seed deals exactly these cards" in page
    assert admin_client.get("/admin/casino/round/add/").status_code == 403


def test_open_tables_keep_their_rules(admin_client, table):
    page = admin_client.get(f"/admin/casino/table/{table.pk}/change/").content.decode()
    assert 'name="decks"' not in page and 'name="min_bet"' in page
    table.is_open = False
    table.save()
    page = admin_client.get(f"/admin/casino/table/{table.pk}/change/").content.decode()
    assert 'name="decks"' in page


def test_seed_pairs_hide_unrevealed_seeds(admin_client, player):
    from casino.services.fairness import seed_pair_active

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
