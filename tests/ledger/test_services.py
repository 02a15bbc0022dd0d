import pytest

from core.errors import CurrencyMismatch, IdempotencyConflict, InsufficientFunds, InvalidAmount, StateConflict
from ledger.models import AdjustmentStatus, EntryKind, JournalEntry, Posting
from ledger.selectors import account_balance, account_lines, house_balance, player_wallet_summary
from ledger.services import (
    Actor,
    Line,
    adjustment_approve,
    adjustment_propose,
    adjustment_reject,
    house_account,
    ledger_post,
    ledger_reverse,
    player_accounts_open,
)
from ledger.verification import ledger_verify
from tests.factories import StaffFactory, make_player

pytestmark = pytest.mark.django_db
SYSTEM = Actor.system("tests")


def stake(player, amount, key):
    wallet, in_play = player_accounts_open(player=player)
    return ledger_post(
        idempotency_key=key,
        kind=EntryKind.STAKE,
        lines=[Line(wallet, -amount), Line(in_play, amount)],
        actor=SYSTEM,
    )


def test_deposit_credits_the_wallet_and_records_balance_after():
    player = make_player(balance=5_000)
    wallet, _ = player_accounts_open(player=player)
    assert account_balance(account=wallet) == 5_000
    (line,) = account_lines(account=wallet)
    assert line.balance_after == 5_000 and line.signed_amount == 5_000


def test_same_key_same_content_posts_once():
    player = make_player(balance=1_000)
    first = stake(player, 300, "k1")
    again = stake(player, 300, "k1")
    assert again.pk == first.pk
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 700, "in_play": 300}


def test_same_key_other_content_is_an_idempotency_conflict():
    player = make_player(balance=1_000)
    stake(player, 300, "k1")
    with pytest.raises(IdempotencyConflict):
        stake(player, 400, "k1")
    assert player_wallet_summary(player=player)["balance"] == 700


def test_a_wallet_never_goes_below_zero_and_a_refusal_writes_nothing():
    player = make_player(balance=1_000)
    entries = JournalEntry.objects.count()
    with pytest.raises(InsufficientFunds):
        stake(player, 1_001, "too-much")
    assert JournalEntry.objects.count() == entries
    assert player_wallet_summary(player=player)["balance"] == 1_000


def test_unbalanced_lines_and_zero_amounts_are_refused():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    with pytest.raises(CurrencyMismatch):
        ledger_post(
            idempotency_key="u",
            kind=EntryKind.STAKE,
            lines=[Line(wallet, -5), Line(in_play, 4)],
            actor=SYSTEM,
        )
    with pytest.raises(InvalidAmount):
        ledger_post(idempotency_key="z", kind=EntryKind.STAKE, lines=[Line(wallet, 0), Line(in_play, 0)], actor=SYSTEM)


def test_two_lines_on_one_account_each_show_their_balance_after():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    entry = ledger_post(
        idempotency_key="two-lines",
        kind=EntryKind.STAKE,
        lines=[Line(wallet, -100), Line(wallet, -200), Line(in_play, 300)],
        actor=SYSTEM,
    )
    afters = list(
        Posting.objects.filter(entry=entry, account=wallet).order_by("id").values_list("balance_after", flat=True)
    )
    assert afters == [900, 700]


def test_a_reversal_is_a_new_linked_entry_that_restores_balances():
    player = make_player(balance=1_000)
    entry = stake(player, 300, "to-reverse")
    reversal = ledger_reverse(entry=entry, reason="dealt in error", actor=SYSTEM)
    assert reversal.reverses_id == entry.pk and reversal.kind == EntryKind.REVERSAL
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 1_000, "in_play": 0}
    assert ledger_reverse(entry=entry, reason="dealt in error", actor=SYSTEM).pk == reversal.pk


def test_house_money_is_spread_over_shards_and_summed():
    player = make_player(balance=10_000)
    wallet, _ = player_accounts_open(player=player)
    for n in range(20):
        house = house_account(currency="EUR", spread_by=f"round:{n}")
        ledger_post(
            idempotency_key=f"loss:{n}",
            kind=EntryKind.SETTLEMENT,
            lines=[Line(wallet, -100), Line(house, 100)],
            actor=SYSTEM,
        )
    assert house_balance(currency="EUR") == 2_000
    assert len({house_account(currency="EUR", spread_by=f"round:{n}").id for n in range(20)}) > 5


def test_adjustments_need_a_second_staff_member():
    player = make_player(balance=0)
    maker, checker = StaffFactory(), StaffFactory()
    adjustment = adjustment_propose(player=player, amount=2_500, reason="goodwill", proposed_by=maker)
    assert player_wallet_summary(player=player)["balance"] == 0
    with pytest.raises(StateConflict):
        adjustment_approve(adjustment=adjustment, approved_by=maker)
    adjustment = adjustment_approve(adjustment=adjustment, approved_by=checker)
    assert adjustment.status == AdjustmentStatus.APPROVED and adjustment.entry.actor_id == str(checker.pk)
    assert player_wallet_summary(player=player)["balance"] == 2_500
    with pytest.raises(StateConflict):
        adjustment_approve(adjustment=adjustment, approved_by=checker)


def test_a_rejected_adjustment_moves_nothing_and_a_debit_cannot_overdraw():
    player = make_player(balance=1_000)
    maker, checker = StaffFactory(), StaffFactory()
    rejected = adjustment_reject(
        adjustment=adjustment_propose(player=player, amount=500, reason="typo", proposed_by=maker),
        rejected_by=checker,
    )
    assert rejected.status == AdjustmentStatus.REJECTED and rejected.entry is None
    too_big = adjustment_propose(player=player, amount=-1_500, reason="chargeback", proposed_by=maker)
    with pytest.raises(InsufficientFunds):
        adjustment_approve(adjustment=too_big, approved_by=checker)
    assert player_wallet_summary(player=player)["balance"] == 1_000


def test_the_ledger_verifies_after_ordinary_work():
    player = make_player(balance=1_000)
    stake(player, 100, "s1")
    run = ledger_verify()
    assert run.ok, run.summary
    assert run.summary["checks"]["hash_chain"]["sealed"] == JournalEntry.objects.count()


def test_the_balance_at_any_past_time():
    from datetime import timedelta

    from django.utils import timezone

    from ledger.selectors import account_balance_at

    player = make_player(balance=1_000)
    wallet, _ = player_accounts_open(player=player)
    after_funding = timezone.now()
    stake(player, 300, "past-1")
    assert account_balance_at(account=wallet, at=after_funding) == 1_000
    assert account_balance_at(account=wallet, at=timezone.now()) == 700
    assert account_balance_at(account=wallet, at=after_funding - timedelta(days=1)) == 0
