"""What operators have of seamless partners: `partner_reconcile` (API.md's JSON, its exit code),
the partner's page, every wallet call in the admin and the reconciliation page, per role."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import Transfer, TransferDirection
from accounts.partners import partner_transfer
from accounts.roles import AUDITOR, OPERATOR, SUPPORT
from accounts.services import partner_create
from casino.models import WalletCall
from tests.casino.test_dashboard import staff
from tests.factories import make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def calls(db, fake_dns):
    """A seamless partner's day: two debits, a credit and a rollback acknowledged, a debit refused,
    a credit still pending; and a call of the day before."""
    fake_dns["wallet.partner.example"] = "93.184.216.34"  # a public address, never called here: only saved
    partner, _ = partner_create(name="Wallet Casino", wallet_url="https://wallet.partner.example/w")
    player = make_player(username="p-w", partner=partner, external_id="ext-1")
    today = timezone.now()

    def call(kind: str, amount: int, status: str, *, at=today, purpose="stake") -> WalletCall:
        made = WalletCall.objects.create(
            transaction_id=f"{uuid.uuid4().hex}-{purpose}",
            kind=kind,
            purpose=purpose,
            partner=partner,
            player=player,
            round_id=uuid.uuid4(),
            amount=amount,
            currency="EUR",
            status=status,
            request_body={"a": 1},
            next_attempt_at=at,
            attempts=1,
            latency_ms=3,
            last_status_code=200,
            last_answer='{"balance": 5}',
        )
        WalletCall.objects.filter(pk=made.pk).update(created_at=at)
        return made

    call("debit", 1_000, "acknowledged")
    call("debit", 2_500, "acknowledged")
    call("debit", 9_999, "refused")
    call("credit", 2_000, "acknowledged", purpose="payout")
    call("rollback", 2_500, "acknowledged", purpose="rollback")
    pending = call("credit", 5_000, "pending", purpose="payout")
    call("debit", 700, "acknowledged", at=today - timedelta(days=1))
    return partner, today.date(), pending


def _reconcile(partner, day) -> dict:
    return json.loads(_run(partner, day))


def _run(partner, day) -> str:
    out = StringIO()
    call_command("partner_reconcile", "--partner", partner.name, "--date", day.isoformat(), stdout=out)
    return out.getvalue()


def test_partner_reconcile_prints_the_days_acknowledged_calls_and_the_pending_ones(calls):
    partner, day, pending = calls
    report = _reconcile(partner, day)
    assert set(report) == {"partner", "date", "debits", "credits", "rollbacks", "unanswered_debits", "pending"}
    assert report["partner"] == "Wallet Casino" and report["date"] == day.isoformat()
    assert report["debits"] == {"count": 2, "total": 3_500}
    assert report["credits"] == {"count": 1, "total": 2_000}
    assert report["rollbacks"] == {"count": 1, "total": 2_500}
    assert report["unanswered_debits"] == {"count": 0, "total": 0, "transaction_ids": []}
    assert [p["transaction_id"] for p in report["pending"]] == [pending.transaction_id]
    assert report["pending"][0]["overdue"] is False


def test_partner_reconcile_fails_while_a_call_is_pending_past_its_retries(calls):
    partner, _day, pending = calls
    WalletCall.objects.filter(pk=pending.pk).update(created_at=timezone.now() - timedelta(minutes=16))
    with pytest.raises(CommandError, match="past their retries"):
        _run(partner, (timezone.now() - timedelta(minutes=16)).date())
    WalletCall.objects.filter(pk=pending.pk).update(status="acknowledged")
    assert _reconcile(partner, (timezone.now() - timedelta(minutes=16)).date())["pending"] == []


def test_partner_reconcile_refuses_an_unknown_partner_or_a_bad_date(calls):
    partner, day, _ = calls
    with pytest.raises(CommandError, match="no partner"):
        call_command("partner_reconcile", "--partner", "Nobody", "--date", day.isoformat())
    with pytest.raises(CommandError, match="not a date"):
        call_command("partner_reconcile", "--partner", partner.name, "--date", "2026-13-01")


@pytest.mark.parametrize("role", [OPERATOR, AUDITOR])
def test_operators_and_auditors_see_every_wallet_call_and_the_reconciliation(client, calls, role):
    partner, day, pending = calls
    staff(client, role)
    listing = client.get("/admin/casino/walletcall/")
    assert listing.status_code == 200
    assert pending.transaction_id[:20] in listing.content.decode()
    detail = client.get(f"/admin/casino/walletcall/{pending.pk}/change/").content.decode()
    assert "€50.00" in detail and "3 ms" in detail and "balance" in detail
    page = client.get(f"/admin/reconciliation/?partner={partner.pk}&date={day.isoformat()}")
    assert page.status_code == 200
    text = page.content.decode()
    assert "€35.00" in text and "€20.00" in text and "€25.00" in text and pending.transaction_id in text
    partner_page = client.get(f"/admin/accounts/partner/{partner.pk}/change/").content.decode()
    assert "seamless" in partner_page and "https://wallet.partner.example/w" in partner_page
    assert "/admin/reconciliation/" in client.get("/admin/").content.decode()


def test_support_sees_no_wallet_calls(client, calls):
    staff(client, SUPPORT)
    assert client.get("/admin/reconciliation/").status_code == 403
    assert client.get("/admin/casino/walletcall/").status_code == 403


def test_the_reconciliation_page_without_a_seamless_partner(client, db):
    staff(client, OPERATOR)
    page = client.get("/admin/reconciliation/")
    assert page.status_code == 200 and "No partner keeps" in page.content.decode()


def test_partner_reconcile_of_a_transfer_partner_prints_its_transfers_of_the_day(db):
    partner, _secret = partner_create(name="Transfer Casino")
    player = make_player(username="p-t", partner=partner, external_id="ext-t")
    for reference, direction, amount in (("in-1", "in", 5_000), ("in-2", "in", 2_500), ("out-1", "out", 1_000)):
        partner_transfer(
            partner=partner, player=player, direction=TransferDirection(direction), amount=amount, reference=reference
        )
    Transfer.objects.filter(reference="in-2").update(created_at=timezone.now() - timedelta(days=1))
    report = _reconcile(partner, timezone.now().date())
    assert report == {
        "partner": "Transfer Casino",
        "date": timezone.now().date().isoformat(),
        "wallet": "transfer",
        "transfers_in": {"count": 1, "total": 5_000},
        "transfers_out": {"count": 1, "total": 1_000},
        "pending": [],
    }
