"""Play-money top-ups: the offered amounts only, under the ceiling, refused like a real deposit."""

import pytest

from accounts.services import PLAY_MONEY_CEILING, PlayMoneyOff, player_play_money_top_up
from core.actors import Actor
from core.errors import InvalidInput, LimitExceeded, SelfExcluded
from ledger.selectors import player_wallet_summary
from protection.services import exclusion_start, limit_set
from tests.factories import make_player

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("play_money")]


def balance(player) -> int:
    return player_wallet_summary(player=player)["balance"]


def test_a_top_up_adds_the_amount_once_per_key():
    player = make_player()
    player_play_money_top_up(player=player, amount=10_000, idempotency_key="k1")
    player_play_money_top_up(player=player, amount=10_000, idempotency_key="k1")
    assert balance(player) == 10_000


@pytest.mark.parametrize("amount", [12_345, -10_000, 0, "10000", 10_000.0, None, True])
def test_only_the_offered_amounts_are_accepted(amount):
    player = make_player()
    with pytest.raises(InvalidInput):
        player_play_money_top_up(player=player, amount=amount, idempotency_key="k")
    assert balance(player) == 0


def test_a_top_up_never_lifts_the_wallet_above_the_ceiling():
    player = make_player(balance=PLAY_MONEY_CEILING - 5_000)
    with pytest.raises(InvalidInput, match="at most"):
        player_play_money_top_up(player=player, amount=10_000, idempotency_key="k")
    assert balance(player) == PLAY_MONEY_CEILING - 5_000


def test_a_deposit_limit_and_a_time_out_refuse_a_top_up():
    player = make_player()
    limit_set(player=player, kind="deposit", period="day", amount=15_000, actor=Actor.player(player))
    player_play_money_top_up(player=player, amount=10_000, idempotency_key="a")
    with pytest.raises(LimitExceeded):
        player_play_money_top_up(player=player, amount=10_000, idempotency_key="b")
    exclusion_start(player=player, kind="timeout", days=1, actor=Actor.player(player))
    with pytest.raises(SelfExcluded):
        player_play_money_top_up(player=player, amount=10_000, idempotency_key="c")
    assert balance(player) == 10_000


def test_a_real_money_service_offers_no_top_up(settings):
    settings.PLAY_MONEY = False
    player = make_player()
    with pytest.raises(PlayMoneyOff):
        player_play_money_top_up(player=player, amount=10_000, idempotency_key="k")
