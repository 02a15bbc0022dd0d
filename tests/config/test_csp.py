"""Every response carries a strict Content-Security-Policy (django-csp, config/settings.py), and the
pages work under it in Chromium: the back office's sign-in and a change page, the API docs (Swagger
UI served from the project, no CDN), the web lobby and a table. A planted inline script, inline
event handler and inline style are blocked, and the browser reports each."""

from __future__ import annotations

import re

import pytest

from casino.models import TableChange
from tests.factories import TableFactory, make_player

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "media-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportViolation(`${event.violatedDirective} ${event.blockedURI || "inline"} ${event.sourceFile || ""}:${event.lineNumber}`);
});
"""


def policy_of(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";") if part.strip())


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/signin/", "/admin/login/", "/api/docs/", "/api/v1/tables/", "/healthz"])
def test_every_response_carries_the_strict_policy(client, path):
    assert policy_of(client.get(path)) == POLICY


@pytest.mark.django_db
def test_the_api_docs_load_swagger_ui_from_the_project_without_inline_script_or_style(client):
    page = client.get("/api/docs/").content.decode()
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, flags=re.S)
    assert scripts and all('src="/' in attributes and not body.strip() for attributes, body in scripts)
    assert "<style" not in page and "style=" not in page and "//cdn" not in page and "https://" not in page
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    start_up = client.get("/api/docs/?script=")
    assert start_up.status_code == 200 and start_up["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in start_up.content.decode()


@pytest.fixture
def violations(page):
    """What the browser refused under the policy, as reported to the page (events and console)."""
    seen: list[str] = []
    page.expose_function("reportViolation", lambda text: seen.append(text))
    page.add_init_script(REPORT_VIOLATIONS)
    page.on(
        "console",
        lambda message: (
            seen.append(message.text) if message.type == "error" and "Content Security Policy" in message.text else None
        ),
    )
    return seen


@pytest.mark.browser
@pytest.mark.urls("tests.config.csp_probe_urls")
@pytest.mark.django_db(transaction=True)
def test_a_planted_inline_script_handler_and_style_are_blocked(page, violations):
    page.goto("/csp-probe/")
    page.click("#handler")
    page.wait_for_timeout(200)
    assert page.inner_text("#target") == "untouched" and page.evaluate("window.plantedRan") is None
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgb(255, 0, 0)"
    directives = {violation.split(" ", 1)[0] for violation in violations if not violation.startswith("Refused")}
    assert {"script-src-elem", "script-src-attr", "style-src-elem"} <= directives, violations


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_back_office_signs_in_and_saves_a_change_page_under_the_policy(page, violations, django_user_model):
    from django_otp.oath import totp

    from accounts.services import staff_totp_enroll

    django_user_model.objects.create_superuser(username="root", password="a-root-passphrase-for-tests")
    device, _ = staff_totp_enroll(username="root")
    table = TableFactory(name="Policy EUR")
    change_page = f"/admin/casino/tablechange/add/?table={table.pk}"
    page.goto(f"/admin/login/?next={change_page}")
    page.fill("#id_username", "root")
    page.fill("#id_password", "a-root-passphrase-for-tests")
    page.fill("#id_otp_token", f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}")
    page.click("input[type=submit]")
    page.wait_for_url(f"**{change_page}")
    page.fill("#id_max_bet", "2000.00")  # typed as money of the table's currency
    page.fill("#id_reason", "higher stakes")
    page.click("input[name=_save]")
    page.wait_for_url("**/admin/casino/tablechange/")
    assert page.locator(".messagelist .success").count() == 1
    assert TableChange.objects.get(table=table).max_bet == 200_000  # proposed: another staff member approves
    assert violations == [], "\n".join(violations)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_api_docs_render_the_operations_under_the_policy(page, violations):
    page.goto("/api/docs/")
    page.wait_for_selector(".opblock", timeout=20_000)
    assert page.locator(".opblock").count() >= 10
    page.locator(".opblock-summary").first.click()  # an operation opens
    page.wait_for_selector(".opblock-body")
    assert violations == [], "\n".join(violations)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_lobby_and_a_table_load_under_the_policy(page, violations):
    from tests.browser import sign_in

    user = make_player(balance=50_000, username="policy").user
    user.set_password("a-player-passphrase")
    user.save()
    table = TableFactory(name="Policy table")
    sign_in(page, "policy", "a-player-passphrase")
    assert page.locator(f"a[href='/tables/{table.pk}/']").count() >= 1
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_load_state("networkidle")
    assert violations == [], "\n".join(violations)
