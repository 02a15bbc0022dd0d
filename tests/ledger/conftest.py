import pytest

from ledger import services


@pytest.fixture(autouse=True, params=["database", "python"])
def posting_backend(request, monkeypatch):
    """Every ledger test runs on both ways of posting: the PostgreSQL function and the portable
    Python path (what SQLite uses), so that the two stay the same."""
    monkeypatch.setattr(services, "POSTING_BACKEND", request.param)
    return request.param
