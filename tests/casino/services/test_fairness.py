"""Provably fair commitment: the next server seed is drawn in advance and its hash published
(`GET fairness/`) before the client seed of the next pair is known; a rotation always moves to that
committed seed, whatever client seed comes with it, and commits to a new one."""

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.engine import server_seed_hash, verify_round
from casino.services.fairness import seed_pair_active, seed_pair_rotate
from casino.services.rounds import round_place
from core.actors import Actor
from tests.casino.helpers import set_next_round

pytestmark = pytest.mark.django_db
FAIRNESS = "/api/v1/fairness/"


def test_the_next_server_seed_hash_is_published_and_the_rotation_moves_to_it(player_client, player, table):
    before = player_client.get(FAIRNESS).json()
    committed = before["next_server_seed_hash"]
    assert len(committed) == 64 and committed != before["server_seed_hash"]
    set_next_round(player, tie=False)  # resolved at once: a round waiting for a decision blocks rotation
    round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
    # The player chooses the new client seed only now, knowing the commitment.
    after = player_client.post(FAIRNESS + "rotate/", {"client_seed": "chosen after"}, content_type="application/json")
    assert after.status_code == 200
    after = after.json()
    assert after["server_seed_hash"] == committed and after["client_seed"] == "chosen after" and after["nonce"] == 0
    assert after["next_server_seed_hash"] not in (committed, before["server_seed_hash"])
    assert player_client.get(FAIRNESS).json() == after
    # Next time round, the revealed seed is the one committed two steps before.
    revealed = player_client.post(FAIRNESS + "rotate/", {}, content_type="application/json").json()["previous"]
    assert revealed["server_seed_hash"] == committed
    assert hashlib.sha256(bytes.fromhex(revealed["server_seed"])).hexdigest() == committed


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    client_seed=st.one_of(
        st.none(),
        st.text(st.characters(categories=["L", "N", "P", "S"], include_characters=" "), min_size=1, max_size=64),
    )
)
def test_whatever_the_client_seed_a_rotation_moves_to_the_committed_seed(player, client_seed):
    current = seed_pair_active(player=player)
    committed = current.next_server_seed
    new = seed_pair_rotate(player=player, client_seed=client_seed, actor=Actor.player(player))
    assert new.server_seed == committed and new.server_seed_hash == server_seed_hash(committed)
    assert new.next_server_seed not in ("", committed)
    current.refresh_from_db()
    assert current.next_server_seed == "" and not current.active  # a retired pair keeps no secret


def test_a_round_after_the_rotation_is_dealt_from_the_committed_seed(player, table):
    committed = seed_pair_active(player=player).next_server_seed
    seed_pair_rotate(player=player, client_seed="mine", actor=Actor.player(player))
    round_ = round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
    cards = verify_round(server_seed=committed, client_seed="mine", nonce=0, decks=6, burn=3).cards
    assert (round_.player_card, round_.dealer_card) == (cards.player.code, cards.dealer.code)


def test_the_schema_describes_the_commitment(client):
    schema = client.get("/api/schema/?format=json").json()
    fairness = schema["components"]["schemas"]["Fairness"]
    assert "next_server_seed_hash" in fairness["properties"] and "next_server_seed_hash" in fairness["required"]


def test_staff_never_see_the_next_server_seed(admin_client, player):
    pair = seed_pair_active(player=player)
    page = admin_client.get(f"/admin/casino/seedpair/{pair.pk}/change/").content.decode()
    assert pair.next_server_seed not in page and pair.server_seed not in page
