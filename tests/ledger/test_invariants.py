"""Hypothesis: any sequence of ledger operations keeps every invariant."""

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InsufficientFunds
from ledger.models import EntryKind, JournalEntry
from ledger.services import (
    Actor,
    Line,
    house_account,
    ledger_post,
    ledger_reverse,
    player_accounts_open,
    wallet_deposit,
)
from ledger.verification import ledger_verify
from tests.factories import make_player

SYSTEM = Actor.system("hypothesis")
operations = st.lists(
    st.tuples(
        st.sampled_from(["deposit", "stake", "win", "lose", "reverse", "retry"]),
        st.integers(min_value=0, max_value=2),
        st.integers(min_value=1, max_value=5_000),
    ),
    max_size=25,
)


@pytest.mark.django_db
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_random_operations_keep_every_invariant(ops):
    players = [make_player(balance=1_000) for _ in range(3)]
    last_posting = None
    for n, (op, who, amount) in enumerate(ops):
        player = players[who]
        wallet, in_play = player_accounts_open(player=player)
        house = house_account(currency="EUR", spread_by=str(n))
        key = f"{op}:{player.pk}:{n}"
        lines = {
            "stake": [Line(wallet, -amount), Line(in_play, amount)],
            "win": [Line(house, -amount), Line(wallet, amount)],
            "lose": [Line(wallet, -amount), Line(house, amount)],
        }.get(op)
        try:
            with transaction.atomic():  # a refusal rolls back to here and the sequence goes on
                if op == "deposit":
                    wallet_deposit(player=player, amount=amount, idempotency_key=key, actor=SYSTEM)
                elif lines is not None:
                    ledger_post(idempotency_key=key, kind=EntryKind.SETTLEMENT, lines=lines, actor=SYSTEM)
                    last_posting = (key, lines)
                elif op == "reverse":
                    entry = (
                        JournalEntry.objects.filter(reverses__isnull=True, reversal__isnull=True).order_by("?").first()
                    )
                    if entry is not None:
                        ledger_reverse(entry=entry, reason="hypothesis", actor=SYSTEM)
                elif op == "retry" and last_posting is not None:
                    ledger_post(
                        idempotency_key=last_posting[0], kind=EntryKind.SETTLEMENT, lines=last_posting[1], actor=SYSTEM
                    )
        except InsufficientFunds:
            pass
    run = ledger_verify()
    assert run.ok, run.summary
