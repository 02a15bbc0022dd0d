import pytest

from tests.factories import TableFactory

pytestmark = pytest.mark.django_db


def test_lobby_lists_open_tables_with_limits_and_exact_house_edge(client):
    TableFactory(name="Open EUR", min_bet=100, max_bet=50_000)
    TableFactory(name="Closed EUR", is_open=False)
    page = client.get("/").content.decode()
    assert "Open EUR" in page and "Closed EUR" not in page
    assert "1.00 EUR to 500.00 EUR" in page
    assert "2.8771 %" in page and "3.6977 %" in page and "18.6495 %" in page


def test_api_schema_and_docs_are_served(client):
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200
