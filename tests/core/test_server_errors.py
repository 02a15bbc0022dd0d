"""Every 5xx is problem+json (API) or the product's 500 page (pages), with a request id that is
also in the log line (issue #16 item 3)."""

import logging

import pytest
from django.db import OperationalError, connection
from django.test import Client, RequestFactory

from core.problems import server_error
from core.request_id import RequestIdFilter
from tests.databases import other_connection

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"


@pytest.fixture
def tolerant_client():
    """A client that gets the 500 answer instead of the exception re-raised into the test."""
    return Client(raise_request_exception=False)


def logged_with(caplog, request_id: str, level: str) -> list[logging.LogRecord]:
    request_filter = RequestIdFilter()
    records = [r for r in caplog.records if request_filter.filter(r) and r.request_id == request_id]
    return [r for r in records if r.levelname == level]


def test_every_response_has_a_request_id_and_a_sane_incoming_one_is_kept(client):
    made = client.get("/api/v1/tables/")
    assert len(made["X-Request-ID"]) == 32
    kept = client.get("/api/v1/tables/", HTTP_X_REQUEST_ID="lb-7f3a.9c1e:42")
    assert kept["X-Request-ID"] == "lb-7f3a.9c1e:42"
    for insane in ("", "a b", "x" * 200, "<script>", "id\nInjected: header"):
        replaced = client.get("/api/v1/tables/", HTTP_X_REQUEST_ID=insane)
        assert replaced["X-Request-ID"] != insane and len(replaced["X-Request-ID"]) == 32


def test_a_problem_body_carries_the_request_id(client):
    response = client.get("/api/v1/rounds/", HTTP_X_REQUEST_ID="req-401")
    assert response.status_code == 401 and response["Content-Type"] == PROBLEM
    assert response.json()["request_id"] == "req-401"


def test_an_unexpected_error_in_an_api_view_is_a_500_problem_logged_with_its_request_id(
    tolerant_client, monkeypatch, caplog, table
):
    def broken():
        raise RuntimeError("a bug")

    monkeypatch.setattr("casino.api.tables.table_list_open", broken)
    response = tolerant_client.get("/api/v1/tables/", HTTP_X_REQUEST_ID="req-bug-1")
    assert response.status_code == 500 and response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == "server_error" and body["status"] == 500 and body["title"] and body["detail"]
    assert body["request_id"] == response["X-Request-ID"] == "req-bug-1"
    errors = logged_with(caplog, "req-bug-1", "ERROR")
    assert errors and errors[0].exc_info[0] is RuntimeError


def test_a_database_error_in_an_api_view_is_a_503_problem_with_retry_after(tolerant_client, monkeypatch, caplog):
    def unreachable():
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr("casino.api.tables.table_list_open", unreachable)
    response = tolerant_client.get("/api/v1/tables/", HTTP_X_REQUEST_ID="req-db-1")
    assert response.status_code == 503 and response["Content-Type"] == PROBLEM and response["Retry-After"] == "1"
    assert response.json()["code"] == "service_unavailable" and response.json()["request_id"] == "req-db-1"
    assert logged_with(caplog, "req-db-1", "ERROR")


@pytest.mark.django_db(transaction=True)
def test_a_terminated_postgresql_backend_is_a_problem_not_an_html_page(tolerant_client, player_client):
    """The connection the next request will use is terminated by PostgreSQL (a restart, a
    failover, an operator's pg_terminate_backend)."""
    connection.ensure_connection()
    backend_pid = connection.connection.info.backend_pid
    with other_connection() as other:
        other.execute("SELECT pg_terminate_backend(%s)", [backend_pid])
    tolerant_client.defaults.update(player_client.defaults)
    response = tolerant_client.get("/api/v1/wallet/", HTTP_X_REQUEST_ID="req-terminated")
    assert response.status_code == 503, response.content
    assert response["Content-Type"] == PROBLEM and response.json()["request_id"] == "req-terminated"
    connection.close()  # the next test gets a fresh connection


def test_plain_django_errors_under_api_are_problems_and_pages_get_the_product_page():
    factory = RequestFactory()
    try:
        raise RuntimeError("a bug outside DRF")
    except RuntimeError:
        api = server_error(factory.get("/api/v1/anything/"))
        page = server_error(factory.get("/wallet/"))
    assert api.status_code == 500 and api["Content-Type"] == PROBLEM
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")
    try:
        raise OperationalError("the server closed the connection unexpectedly")
    except OperationalError:
        unavailable = server_error(factory.get("/api/v1/wallet/"))
    assert unavailable.status_code == 503 and unavailable["Retry-After"] == "1"


def test_an_error_in_a_page_is_html_with_the_request_id(tolerant_client, monkeypatch, caplog):
    def broken(**kwargs):
        raise RuntimeError("a bug in a page")

    monkeypatch.setattr("web.views.table_list_open", broken)
    response = tolerant_client.get("/", HTTP_X_REQUEST_ID="req-page-1")
    assert response.status_code == 500 and response["Content-Type"].startswith("text/html")
    assert response["X-Request-ID"] == "req-page-1" and b"req-page-1" in response.content
    assert logged_with(caplog, "req-page-1", "ERROR")
