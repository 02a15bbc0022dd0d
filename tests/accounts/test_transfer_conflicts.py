"""A transfer whose transaction PostgreSQL undoes for another one (a deadlock) is run again by the
service (core/transactions.py `retried_on_conflict`); after the last attempt the answer says what
happened, and nothing is stored under the key, so the same key retried later moves the money once."""

import psycopg
import pytest
from django.db import OperationalError

import accounts.api
from accounts.models import Transfer
from accounts.partners import partner_transfer
from accounts.services import partner_create
from core.transactions import CONFLICT_ATTEMPTS
from tests.casino.helpers import PartnerClient

pytestmark = pytest.mark.django_db(transaction=True)  # a retry runs a whole transaction again
BASE = "/api/v1/partner/players"


def deadlock() -> OperationalError:
    """What Django raises when PostgreSQL chose this transaction as a deadlock's victim."""
    error = OperationalError("deadlock detected")
    error.__cause__ = psycopg.errors.DeadlockDetected("deadlock detected")
    return error


@pytest.fixture
def api(client):
    partner, secret = partner_create(name="Busy Casino")
    api = PartnerClient(client, partner, secret)
    assert api.put(f"{BASE}/ext-1/", {"currency": "EUR"}).status_code == 201
    return api


def transfer_in(api, key="deposit-1"):
    return api.post(
        f"{BASE}/ext-1/transfers/", {"direction": "in", "amount": 5_000, "reference": "dep-1"}, HTTP_IDEMPOTENCY_KEY=key
    )


def losing(monkeypatch, times: int) -> list:
    """The transfer moves its money, then loses a deadlock, the first `times` times it runs."""
    runs = []

    def transfer(**kwargs):
        runs.append(1)
        made = partner_transfer(**kwargs)  # written, then undone with its transaction
        if len(runs) <= times:
            raise deadlock()
        return made

    monkeypatch.setattr(accounts.api, "partner_transfer", transfer)
    return runs


def test_a_transfer_that_lost_a_deadlock_is_run_again_and_moves_the_money_once(api, monkeypatch, caplog):
    runs = losing(monkeypatch, times=CONFLICT_ATTEMPTS - 1)
    response = transfer_in(api)
    assert response.status_code == 201, response.content
    assert len(runs) == CONFLICT_ATTEMPTS
    assert Transfer.objects.count() == 1 and response.json()["balance"] == 5_000
    assert "a deadlock (attempt 1 of 3); running it again" in caplog.text


def test_a_transfer_that_loses_every_attempt_says_so_and_its_retry_moves_the_money_once(api, monkeypatch):
    runs = losing(monkeypatch, times=CONFLICT_ATTEMPTS)
    response = transfer_in(api)
    assert len(runs) == CONFLICT_ATTEMPTS
    assert response.status_code == 503 and response["Retry-After"] == "1"
    problem = response.json()
    assert problem["code"] == "service_unavailable" and "did not answer" not in problem["detail"]
    assert "another one was changing the same money" in problem["detail"]
    assert problem["request_id"] == response["X-Request-ID"]
    assert Transfer.objects.count() == 0

    retried = transfer_in(api)  # the same key: nothing was stored for it
    assert retried.status_code == 201 and Transfer.objects.count() == 1
