"""Pages that fail look like the product's, on the demo server too (DEBUG on): no debug page listing
the URL patterns, no traceback in the browser (it goes to the log). /favicon.ico is there."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from tests.factories import StaffFactory, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[True, False], ids=["DEBUG on", "DEBUG off"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


def test_a_missing_page_is_the_product_s_404(client, debug):
    response = client.get("/no-such-page/")
    page = response.content.decode()
    assert response.status_code == 404 and "Page not found" in page and "Back to the tables" in page
    assert "URLconf" not in page and "admin/" not in page.split("<main")[1]  # no URL patterns listed
    assert 'href="/static/css/site.css"' in page


def test_a_round_of_nobody_is_the_product_s_404_for_a_signed_in_player(client, debug):
    client.force_login(make_player(username="paul").user)
    response = client.get("/history/not-a-round/")
    page = response.content.decode()
    assert response.status_code == 404 and "Page not found" in page and "My round history" in page
    assert "Traceback" not in page and "round_recall" not in page


def test_a_failing_page_is_the_product_s_500_and_the_traceback_goes_to_the_log(debug, monkeypatch, caplog):
    def broken(**kwargs):
        raise RuntimeError("a bug in a page")

    monkeypatch.setattr("web.views.table_list_open", broken)
    response = Client(raise_request_exception=False).get("/", HTTP_X_REQUEST_ID="req-demo-500")
    page = response.content.decode()
    assert response.status_code == 500 and "Something went wrong" in page and "req-demo-500" in page
    assert "a bug in a page" not in page and "Traceback" not in page
    assert any(record.exc_info and "a bug in a page" in str(record.exc_info[1]) for record in caplog.records)


def test_with_debug_on_an_api_error_is_still_a_problem_and_a_403_still_a_403(client, settings, monkeypatch):
    settings.DEBUG = True

    def broken(**kwargs):
        raise RuntimeError("a bug in the API")

    monkeypatch.setattr("casino.api.tables.table_list_open", broken)
    response = Client(raise_request_exception=False).get("/api/v1/tables/")
    assert response.status_code == 500 and response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "server_error"
    client.force_login(StaffFactory())  # staff without any permission
    assert client.get("/admin/casino/round/").status_code == 403


def test_the_favicon_is_served_where_browsers_look_for_it(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response.url == "/static/web/favicon.ico"
    icon = Path(finders.find("web/favicon.ico")).read_bytes()
    assert icon[:4] == b"\x00\x00\x01\x00" and b"PNG" in icon[:40]  # an ICO file holding a PNG


@pytest.mark.parametrize("path", ["/api/v1/no-such-endpoint/", "/api/v1/rounds/1/2/3/", "/api/nothing"])
def test_an_unknown_api_url_is_a_not_found_problem_not_a_page(client, debug, path):
    response = client.get(path, HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 404 and response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["code"] == "not_found" and problem["status"] == 404 and problem["request_id"]
    assert problem["detail"] == f"No hay ningún punto de la API en {path}."
