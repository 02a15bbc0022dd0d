"""Reads of the ledger: balances (now and at any past time), account lines, house totals."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.db.models import Case, F, Sum, When
from django.db.models.functions import Coalesce

from ledger.models import Account, AccountKind, Direction, JournalEntry, Posting

if TYPE_CHECKING:  # accounts is above ledger (pyproject's layers): for the annotations only
    from accounts.models import Player

SIGNED = Case(When(direction=Direction.CREDIT, then=F("amount")), default=-F("amount"))


def account_balance(*, account: Account) -> int:
    return Account.objects.values_list("balance", flat=True).get(pk=account.pk)


def account_balance_at(*, account: Account, at: datetime) -> int:
    """The balance as it stood at `at`: the sum of the postings of entries made until then."""
    return Posting.objects.filter(account=account, entry__created_at__lte=at).aggregate(total=Coalesce(Sum(SIGNED), 0))[
        "total"
    ]


LINE_ORDER = ("-id",)  # newest first, in the order the balance changed


def account_lines(*, account: Account):
    """The account's postings, newest first, each with its entry and `balance_after`, in the order
    the balance changed: each line's `balance_after - amount` is the next older line's
    `balance_after`. That order is the postings' ids, not the entries': a posting takes its id
    after its entry has locked the account row (`ledger_post_entry` writes postings last), while an
    entry takes its id before, so entries waiting on the same wallet get ids in another order.
    The API, the web wallet, the admin's account pages and exports all read lines in this order."""
    return Posting.objects.filter(account=account).select_related("entry").order_by(*LINE_ORDER)


def player_wallet_lines(*, player: Player):
    """The lines of the player's wallet (the account whose total is its balance), newest first."""
    return (
        Posting.objects.filter(
            account__player=player, account__kind=AccountKind.PLAYER_WALLET, account__currency=player.currency
        )
        .select_related("entry", "entry__transfer")  # a partner transfer's reference (accounts' Transfer)
        .order_by(*LINE_ORDER)  # the order the balance changed (account_lines says why)
    )


def house_balance(*, currency: str) -> int:
    """The house bankroll: the sum of its shards."""
    return Account.objects.filter(kind=AccountKind.HOUSE, currency=currency).aggregate(
        total=Coalesce(Sum("balance"), 0)
    )["total"]


def player_wallet_summary(*, player: Player) -> dict[str, int | str]:
    balances = dict(Account.objects.filter(player=player, currency=player.currency).values_list("kind", "balance"))
    return {
        "currency": player.currency,
        "balance": balances.get(AccountKind.PLAYER_WALLET, 0),
        "in_play": balances.get(AccountKind.PLAYER_IN_PLAY, 0),
    }


def entries_for_reference(*, reference_type: str, reference_id: str):
    return (
        JournalEntry.objects.filter(reference_type=reference_type, reference_id=str(reference_id))
        .prefetch_related("postings__account")
        .order_by("id")
    )


def player_money_ever_moved(*, player: Player) -> bool:
    """Whether any of the player's accounts (in any currency) ever had a posting."""
    return Posting.objects.filter(account__player=player).exists()
