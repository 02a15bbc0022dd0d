import pytest

from ledger.models import Adjustment, JournalEntry
from ledger.verification import ledger_verify
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_ledger_is_searchable_and_read_only_in_the_admin(admin_client):
    make_player(balance=1_000, username="searchme")
    entry = JournalEntry.objects.get()
    assert admin_client.get("/admin/ledger/journalentry/?q=test-funding").status_code == 200
    page = admin_client.get(f"/admin/ledger/journalentry/{entry.pk}/change/")
    assert page.status_code == 200 and b"Save" not in page.content
    assert admin_client.get("/admin/ledger/journalentry/add/").status_code == 403
    assert admin_client.post(f"/admin/ledger/journalentry/{entry.pk}/delete/").status_code == 403
    assert admin_client.get("/admin/ledger/account/?q=searchme").status_code == 200
    assert admin_client.get("/admin/ledger/posting/add/").status_code == 403


def test_accounts_and_postings_read_as_money(admin_client):
    make_player(balance=9_700, username="rich")
    assert "€97.00" in admin_client.get("/admin/ledger/account/?q=rich").content.decode()
    postings = admin_client.get("/admin/ledger/posting/").content.decode()
    assert "€97.00" in postings and ">9700<" not in postings
    entry = JournalEntry.objects.get()
    assert "€97.00" in admin_client.get(f"/admin/ledger/journalentry/{entry.pk}/change/").content.decode()


def test_an_adjustment_is_typed_in_major_units(admin_client):
    player = make_player(username="paula")
    assert (
        admin_client.post(
            "/admin/ledger/adjustment/add/", {"player": player.pk, "amount": "25.50", "reason": "goodwill"}
        ).status_code
        == 302
    )
    assert (
        admin_client.post(
            "/admin/ledger/adjustment/add/", {"player": player.pk, "amount": "-1,000.00", "reason": "a debit"}
        ).status_code
        == 302
    )
    assert sorted(Adjustment.objects.values_list("amount", flat=True)) == [-100_000, 2_550]
    refused = admin_client.post(
        "/admin/ledger/adjustment/add/", {"player": player.pk, "amount": "25.505", "reason": "too precise"}
    )
    assert refused.status_code == 200 and "Enter an amount such as 6.00." in refused.content.decode()
    listed = admin_client.get("/admin/ledger/adjustment/").content.decode()
    assert "€25.50" in listed and "-€1,000.00" in listed
    page = admin_client.get(f"/admin/ledger/adjustment/{Adjustment.objects.get(amount=2_550).pk}/change/")
    assert "€25.50" in page.content.decode()


def test_a_verification_run_reads_as_small_tables(admin_client):
    make_player(balance=1_000, username="checked")
    run = ledger_verify(triggered_by="manual")
    page = admin_client.get(f"/admin/ledger/verificationrun/{run.pk}/change/").content.decode()
    assert "Every entry balances, per currency" in page and "holds" in page and "EUR: €0.00" in page
    assert '"checks"' not in page and "&quot;checks&quot;" not in page  # no raw JSON
