import pytest

from ledger.models import JournalEntry
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
