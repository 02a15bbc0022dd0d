import factory

from accounts.models import User
from accounts.services import player_create
from casino.models import Table
from core.actors import Actor
from ledger.services import wallet_deposit


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")


class StaffFactory(UserFactory):
    username = factory.Sequence(lambda n: f"staff{n}")
    is_staff = True


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Table

    name = factory.Sequence(lambda n: f"Table {n}")
    currency = "EUR"
    min_bet = 100
    max_bet = 100_000
    bet_step = 100
    max_tie_bet = 10_000


_players = iter(range(10**9))


def make_player(*, balance: int = 0, currency: str = "EUR", username: str | None = None, **kwargs):
    """A player with wallet accounts, funded with `balance` minor units through the ledger."""
    player = player_create(username=username or f"player{next(_players)}", password=None, currency=currency, **kwargs)
    if balance:
        wallet_deposit(
            player=player,
            amount=balance,
            idempotency_key=f"test-funding:{player.pk}",
            actor=Actor.system("tests"),
        )
    return player
