"""docs/PARTNERS.md's worked examples, run as written: the Python blocks executed, the shell blocks
run by bash with openssl (curl replaced by a function that prints what it would send), and what
they produce checked against the service's own verification (accounts/partners.py) and the test
partner wallet's (tests/wallet_server.py). A change to the signing recipe, or to the doc, that
makes them disagree fails here."""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import re
import shutil
import subprocess
import threading
import types
from pathlib import Path

import pytest

from accounts import partners
from accounts.models import Partner
from accounts.partners import partner_authenticate
from core.errors import SignatureInvalid
from core.outbound import request_signature
from tests.wallet_server import PartnerWallet, signature_of

DOC = Path(__file__).resolve().parent.parent / "docs" / "PARTNERS.md"
HEX = r"[0-9a-f]{64}"


def example(name: str) -> str:
    """The fenced block right after `<!-- example: name -->`."""
    match = re.search(rf"<!-- example: {re.escape(name)} -->\n```\w+\n(.*?)\n```", DOC.read_text(), re.DOTALL)
    assert match, f"docs/PARTNERS.md has no example {name!r}"
    return match.group(1)


def run_python(name: str) -> tuple[dict, str, str]:
    """Execute a Python example: its names, what it printed, and what its print's comment says."""
    code = example(name)
    namespace: dict = {"__name__": f"partners_doc_{name.replace('-', '_')}"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"PARTNERS.md:{name}", "exec"), namespace)  # the doc's own code, as a reader runs it
    promised = re.search(r"^print\(.*\)  # (.+)$", code, re.MULTILINE)
    assert promised, f"the example {name!r} says what it prints"
    return namespace, printed.getvalue().strip(), promised.group(1)


def run_shell(name: str) -> tuple[list[str], str]:
    """Run a shell example with curl replaced: the arguments curl got, and the signature its comment promises."""
    if shutil.which("openssl") is None:
        pytest.fail("the shell examples need openssl, as a partner's shell would")
    code = example(name)
    script = "set -euo pipefail\ncurl() { printf '%s\\0' \"$@\"; }\n" + code
    out = subprocess.run(["bash", "-c", script], capture_output=True, check=True).stdout
    promised = re.search(rf"^# ({HEX})$", code, re.MULTILINE)
    assert promised, f"the example {name!r} says which signature it makes"
    return out.decode().split("\0")[:-1], promised.group(1)


def curl_request(arguments: list[str]) -> tuple[str, dict[str, str], bytes]:
    """The URL, headers and body of a curl command line."""
    url, headers, body = "", {}, b""
    items = iter(arguments)
    for argument in items:
        if argument == "-H":
            header, _, value = next(items).partition(": ")
            headers[header] = value
        elif argument == "--data-binary":
            body = next(items).encode()
        elif argument == "-X":
            assert next(items) == "POST"
        elif argument.startswith("https://"):
            url = argument
    return url, headers, body


@pytest.fixture
def doc_partner(db, monkeypatch):
    """The doc's partner (its key and secret), with the service's clock at the example's time."""
    namespace, _, _ = run_python("request-python")
    monkeypatch.setattr(partners, "time", types.SimpleNamespace(time=lambda: int(namespace["timestamp"])))
    return Partner.objects.create(name="Acme Casino", key_id=namespace["key"], secret=namespace["secret"])


def test_the_python_request_example_prints_the_signature_it_promises():
    namespace, printed, promised = run_python("request-python")
    assert re.fullmatch(HEX, promised)
    assert printed == promised == namespace["signature"]


def test_the_python_request_example_is_signed_as_the_service_verifies(doc_partner):
    namespace, _, promised = run_python("request-python")
    request = {key: namespace[key] for key in ("timestamp", "nonce", "method", "path", "body")}
    assert request_signature(secret=namespace["secret"], **request) == promised
    signed = partner_authenticate(key_id=namespace["key"], signature=promised, **request)
    assert signed.partner == doc_partner
    with pytest.raises(SignatureInvalid):  # another body under the same signature is refused
        partner_authenticate(key_id=namespace["key"], signature=promised, **{**request, "body": b"{}"})


def test_the_curl_request_example_sends_what_the_service_accepts(doc_partner):
    arguments, promised = run_shell("request-curl")
    url, headers, body = curl_request(arguments)
    _, _, python_signature = run_python("request-python")
    assert headers["X-Signature"] == promised == python_signature  # the shell recipe is the Python one
    assert headers["X-Partner-Key"] == doc_partner.key_id and headers["Idempotency-Key"]
    signed = partner_authenticate(
        key_id=headers["X-Partner-Key"],
        timestamp=headers["X-Timestamp"],
        nonce=headers["X-Nonce"],
        signature=headers["X-Signature"],
        method="POST",
        path=url.removeprefix("https://casino-war.example"),
        body=body,
    )
    assert signed.partner == doc_partner
    assert json.loads(body) == {"table": "1", "main_bet": 500}


def test_the_wallet_example_checks_our_calls_as_the_service_signs_them():
    namespace, printed, promised = run_python("wallet-python")
    assert printed == promised == "True"
    headers, path, raw = namespace["headers"], namespace["path"], namespace["raw_body"]
    timestamp, nonce = headers["X-Timestamp"], headers["X-Nonce"]
    # The signature in the doc is the one the service's client makes for this call...
    assert (
        request_signature(
            secret=namespace["secret"], timestamp=timestamp, nonce=nonce, method="POST", path=path, body=raw
        )
        == headers["X-Signature"]
    )
    assert (
        signature_of(secret=namespace["secret"], timestamp=timestamp, nonce=nonce, path=path, body=raw)
        == (headers["X-Signature"])
    )
    assert nonce == json.loads(raw)["transaction_id"]
    # ...and the doc's check refuses what it must.
    check = namespace["signed_by_casino_war"]
    now = int(timestamp)
    assert not check(namespace["secret"], headers, path, raw.replace(b"500", b"5000"), now=now)
    assert not check(namespace["secret"], headers, "/casino-war/credit", raw, now=now)
    assert not check("another-secret", headers, path, raw, now=now)
    assert not check(namespace["secret"], headers, path, raw, now=now + 301)
    assert check(namespace["secret"], headers, path, raw, now=now - 300)


def test_the_curl_wallet_example_is_answered_by_the_test_wallet_as_the_doc_shows():
    namespace, _, _ = run_python("wallet-python")
    arguments, promised = run_shell("wallet-curl")
    url, headers, body = curl_request(arguments)
    assert headers["X-Signature"] == promised == namespace["headers"]["X-Signature"]
    assert body == namespace["raw_body"]
    promised_answer = json.loads(re.search(r"^# (\{.*\})$", example("wallet-curl"), re.MULTILINE).group(1))
    path = url.removeprefix("https://wallet.acme.example")
    with PartnerWallet(
        secret=namespace["secret"], base_path=path.rpartition("/")[0], clock=lambda: int(headers["X-Timestamp"])
    ) as wallet:
        call = json.loads(body)
        wallet.set_balance(
            player=call["player"], currency=call["currency"], amount=promised_answer["balance"] + call["amount"]
        )
        status, answer = _post(wallet, path, headers, body)
        assert (status, answer) == (200, promised_answer)
        assert _post(wallet, path, {**headers, "X-Signature": "0" * 64}, body)[0] == 401


def _post(wallet: PartnerWallet, path: str, headers: dict, body: bytes) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", wallet.port, timeout=10)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_the_guide_is_linked_from_the_readme():
    assert "(docs/PARTNERS.md)" in (DOC.parent.parent / "README.md").read_text()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_launch_examples_frame_the_table_from_another_site(
    blocking_chromium, live_server, settings, monkeypatch, tmp_path
):
    """The Python server and the HTML page of "Game launch", as written: the page (on 127.0.0.1)
    frames the table (on localhost) in Chromium with third-party cookies blocked, hears its events,
    and ends the session; then the same for a demo table."""
    from accounts.models import GameSession
    from accounts.services import partner_create
    from tests.factories import TableFactory

    settings.OUTBOUND_ALLOW_PRIVATE = True  # the example's lobby and origin are http on this machine
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    TableFactory(name="Doc EUR")
    partner, secret = partner_create(name="Acme Casino")
    monkeypatch.setenv("CASINO_URL", live_server.url)
    monkeypatch.setenv("PARTNER_KEY", partner.key_id)
    monkeypatch.setenv("PARTNER_SECRET", secret)
    (tmp_path / "partner.html").write_text(example("launch-html"))
    namespace: dict = {"__name__": "partner_site", "__file__": str(tmp_path / "partner_site.py")}
    exec(compile(example("launch-python"), "PARTNERS.md:launch-python", "exec"), namespace)  # as a reader runs it
    server = namespace["serve"](0)
    Partner.objects.filter(pk=partner.pk).update(origins=[f"http://127.0.0.1:{server.server_port}"])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    context = blocking_chromium.new_context(locale="en-US", viewport={"width": 1300, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"http://127.0.0.1:{server.server_port}/")
        page.click("#play")
        page.frame_locator("#game").locator("#main .table-card").first.wait_for()  # our lobby, in the frame
        page.wait_for_selector("#events li[data-type=ready]", state="attached")
        page.wait_for_selector("#events li[data-type='balance.changed']", state="attached")
        assert page.inner_text("#balance") == "0.00 EUR"
        session = GameSession.objects.get(player__external_id="player-42")
        page.click("#close")
        page.wait_for_function("document.getElementById('game').hidden")
        session.refresh_from_db()
        assert session.ended_reason == "deleted"
        page.click("#demo")
        page.frame_locator("#game").locator(".demo-badge").wait_for()
        page.wait_for_function("document.querySelectorAll('#events li[data-type=ready]').length === 2")
        # The demo table's balance arrives in its own balance.changed event, after its ready.
        page.wait_for_function("document.getElementById('balance').textContent === '1000.00 EUR'")
        assert GameSession.objects.filter(demo=True, partner=partner).count() == 1
    finally:
        context.close()
        server.shutdown()
        server.server_close()


APPS_AND_TOOLS = ("accounts", "benchmarks", "bin", "casino", "config", "core", "ledger", "protection", "tests", "web")


def test_the_guide_stands_alone_without_the_services_source():
    """A partner's developer reads the guide, not this repository: no file of it is pointed at."""
    text = DOC.read_text()
    pointed = re.findall(r"(?<![\w/.{}-])(?:tests|casino|accounts|ledger|core|config|web|benchmarks)/[\w/.-]+", text)
    # A Python file's name alone points into the repository when one of its files has that name (the
    # guide's own examples, such as the partner's `partner_site.py`, are the reader's files).
    ours = {path.name for top in APPS_AND_TOOLS for path in (DOC.parent.parent / top).rglob("*.py")} - {"manage.py"}
    pointed += [name for name in re.findall(r"\b[\w/]+\.py\b", text) if name.rsplit("/", 1)[-1] in ours]
    assert pointed == [], pointed


def test_the_guides_links_lead_to_its_headings():
    text = DOC.read_text()
    anchors = {
        re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in re.findall(r"^#+ (.+)$", text, re.M)
    }
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert links and sorted(set(links) - anchors) == []


def test_pages_are_asked_for_with_limit_and_offset():
    text = DOC.read_text()
    assert "page=" not in text and "?limit=50&offset=50" in text


def test_every_wallet_line_kind_is_explained():
    from ledger.models import EntryKind

    (row,) = [
        line
        for line in DOC.read_text().splitlines()
        if line.startswith("| `GET partner/players/{external_id}/wallet/transactions/`")
    ]
    assert [kind.value for kind in EntryKind if f"`{kind.value}`" not in row] == []


def test_every_error_code_a_partner_can_meet_is_in_the_table():
    from core import errors

    players_only = {"username_taken", "invalid_credentials", "not_a_player"}
    general = {"error", "conflict", "refused"}  # the families' codes; each refusal has its own
    table = DOC.read_text().split("## Error codes", 1)[1].split("\n## ", 1)[0]
    codes = {
        cls.code for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.ServiceError)
    }
    assert sorted(code for code in codes - players_only - general if f"`{code}`" not in table) == []
