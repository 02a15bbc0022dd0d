"""Game launch in real Chromium with third-party cookies blocked (API.md "Game launch"): a partner's
page on another site (127.0.0.1, while the service is localhost) frames the table; the player
plays rounds and a tie; the seamless wallet sees the debits and credits; the parent page hears the
events, from our origin only; the session survives a reload and moves between the lobby, the table
and the history without any cookie; it ends on DELETE and the page says so. Also: the link used
twice or too late, another player's data, a foreign site framing the table, a demo session that
calls no wallet."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import Client

from accounts.models import GameSession, Partner
from accounts.services import partner_create
from casino.models import Round
from tests.browser import SCREENSHOTS, give_seed
from tests.casino.helpers import PartnerClient
from tests.casino.seamless import SECRET
from tests.web.test_table import seed_dealing

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
BASE = "/api/v1/partner/players"
PLAYER = "ext-1"

# The partner's page: the launch URL in an iframe of the size it is given, and every message the
# frame posts, with the origin it came from.
PARTNER_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Partner casino</title></head>
<body style="margin:0"><h1 style="font:16px sans-serif;margin:4px">Partner casino</h1>
<iframe id="game" src="{src}" width="{width}" height="{height}" style="border:0"></iframe>
<script>
window.events = [];
window.addEventListener("message", (event) => {{
  if (event.data && event.data.source === "casino-war") window.events.push({{origin: event.origin, ...event.data}});
}});
</script></body></html>"""


class PartnerSite:
    """A partner's web server on this machine, on another site than the service: it serves one page
    that frames the URL it is told (`show`)."""

    def __init__(self, host: str) -> None:
        site = self
        self.page = "<!doctype html><title>empty</title>"

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = site.page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.origin = f"http://{host}:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def show(self, src: str, *, width: int = 1280, height: int = 800) -> str:
        self.page = PARTNER_PAGE.format(src=src, width=width, height=height)
        return f"{self.origin}/casino"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def service(live_server, settings, monkeypatch):
    """The service on `localhost` (live_server), answering state polls every second."""
    from web import game

    assert live_server.url.startswith("http://localhost:")
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    monkeypatch.setattr(game, "STATE_POLL_S", 1)
    return live_server.url


@pytest.fixture
def partner_site():
    site = PartnerSite("127.0.0.1")
    yield site
    site.close()


@pytest.fixture
def browser_page(blocking_chromium):
    context = blocking_chromium.new_context(viewport={"width": 1300, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture
def seamless_partner(wallet, partner_site, open_table):
    partner, _ = partner_create(name="Framing Casino", wallet_url=wallet.url, origins=[partner_site.origin])
    Partner.objects.filter(pk=partner.pk).update(secret=SECRET)
    partner.refresh_from_db()
    api = PartnerClient(Client(), partner, SECRET)
    assert api.put(f"{BASE}/{PLAYER}/", {"currency": "EUR"}).status_code == 201
    wallet.set_balance(player=PLAYER, currency="EUR", amount=100_000)
    return partner, api


@pytest.fixture
def open_table(transactional_db):
    from tests.factories import TableFactory

    return TableFactory(name="Felt EUR", min_bet=100, max_bet=50_000, bet_step=100, max_tie_bet=5_000)


def launch_url(service: str, api, *, path: str = f"{BASE}/{PLAYER}/sessions/", **body) -> tuple[str, str]:
    answer = api.post(path, body)
    assert answer.status_code == 201, answer.content
    launched = answer.json()
    return launched["session"], service + re.sub(r"^https?://[^/]+", "", launched["url"])


def game_frame(page):
    page.wait_for_selector("#game")
    return page.frame_locator("#game")


def frame_of(page):
    return page.frame(url=re.compile(r".*/play/.*"))


def events(page, kind: str | None = None) -> list[dict]:
    found = page.evaluate("window.events")
    return [e for e in found if kind is None or e["type"] == kind]


def deal_and_settle(page, frame) -> None:
    """Deal one round that resolves at once; return when the partner's page heard it settled."""
    placed, settled = len(events(page, "round.placed")), len(events(page, "round.settled"))
    frame.locator("#deal:enabled").click()
    page.wait_for_function(f"window.events.filter(e => e.type === 'round.placed').length > {placed}")
    page.wait_for_function(f"window.events.filter(e => e.type === 'round.settled').length > {settled}")


def test_a_partner_frames_the_table_and_its_player_plays_through_the_seamless_wallet(
    service, partner_site, browser_page, seamless_partner, wallet, open_table
):
    partner, api = seamless_partner
    player = partner.players.get(external_id=PLAYER)
    give_seed(player, seed_dealing("win", "lose", "tie"))
    session_id, url = launch_url(
        service, api, table=open_table.pk, language="en", lobby_url=f"{partner_site.origin}/lobby"
    )
    page = browser_page
    page.goto(partner_site.show(url))
    frame = game_frame(page)
    frame.locator("body[data-table-ready=true]").wait_for()
    inner = frame_of(page)
    # The frame is third-party and has neither cookies nor storage: the session needs neither.
    assert (
        inner.evaluate("() => { try { sessionStorage.length; return 'storage'; } catch (e) { return 'blocked'; } }")
        == "blocked"
    )
    assert inner.evaluate("() => { document.cookie = 'probe=1; SameSite=None'; return document.cookie; }") == ""
    assert inner.url.endswith(f"/play/{session_id}/tables/{open_table.pk}/")  # the launch URL is left behind
    frame.locator("#felt-balance").filter(has_text="€1,000.00").wait_for()
    assert frame.locator(".back-to-casino").get_attribute("href") == f"{partner_site.origin}/lobby"
    # The whole felt fits the 1280 x 800 frame, its larger cards and the balance at its foot included.
    felt = inner.evaluate("JSON.parse(JSON.stringify(document.getElementById('felt').getBoundingClientRect()))")
    assert felt["bottom"] <= 800 and felt["right"] <= 1280, felt

    deal_and_settle(page, frame)  # a win
    deal_and_settle(page, frame)  # a loss
    frame.locator("#deal").click()  # a tie: go to war
    frame.locator("#decision:not([hidden])").wait_for()
    frame.locator("#war").click()
    page.wait_for_function("window.events.filter(e => e.type === 'round.settled').length === 3")

    debits, credits = wallet.calls_named("debit", status=200), wallet.calls_named("credit", status=200)
    assert [c.body["kind"] for c in debits] == ["stake", "stake", "stake", "raise"]
    assert len(credits) == 3 and all(c.body["player"] == PLAYER for c in debits + credits)
    rounds = list(Round.objects.filter(player=player).order_by("created_at"))
    assert [r.outcome for r in rounds][:2] == ["win", "lose"] and rounds[2].decision == "war"
    expected = 100_000 + sum(r.net for r in rounds)
    assert wallet.balance(player=PLAYER, currency="EUR") == expected
    page.wait_for_function(f"window.events.some(e => e.type === 'balance.changed' && e.balance === {expected})")

    heard = events(page)
    assert {e["origin"] for e in heard} == {service}  # from the service, and only to the partner's origin
    assert heard[0]["type"] == "ready" and heard[0]["table"] == str(open_table.pk)
    assert {e["round"] for e in heard if e["type"] == "round.placed"} == {str(r.pk) for r in rounds}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "game-launch-framed.png", animations="disabled")

    # Moving around inside the frame keeps the session: no cookie, no token in any URL.
    frame.locator("nav a", has_text="History").click()
    frame.locator("#game-history[aria-busy=false]").wait_for()
    assert frame.locator("#game-history tbody tr").count() == 3
    when = frame.locator("#game-history tbody tr td").first.inner_text()  # written as the pages write a moment
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC", when), when
    frame.locator("nav a", has_text="Tables").click()
    frame.locator(".table-card a.button").first.click()
    frame.locator("body[data-table-ready=true]").wait_for()
    frame_of(page).evaluate("location.reload()")
    frame.locator("body[data-table-ready=true]").wait_for()
    frame.locator("#felt-balance").filter(has_text=re.compile("€")).wait_for()
    assert not any(token in frame_of(page).url for token in ("launch", "GameSession"))

    # Another player's round is nobody's business of this session.
    other = PartnerClient(Client(), partner, SECRET)
    other.put(f"{BASE}/ext-2/", {"currency": "EUR"})
    wallet.set_balance(player="ext-2", currency="EUR", amount=10_000)
    others = other.post(f"{BASE}/ext-2/rounds/", {"table": open_table.pk, "main_bet": 100}, HTTP_IDEMPOTENCY_KEY="x2")
    assert others.status_code == 201
    status = frame_of(page).evaluate(
        "id => fetch(`/api/v1/rounds/${id}/`, {headers: CWGame.headers(), credentials: 'omit'}).then(r => r.status)",
        others.json()["id"],
    )
    assert status == 404

    # The partner ends the session: the page says so and stops playing.
    assert api.request("DELETE", f"{BASE}/{PLAYER}/sessions/{session_id}/").status_code == 204
    frame.locator("body[data-game-ended=true]").wait_for()
    assert frame.locator("#game-ended").is_visible() and not frame.locator("#deal").is_visible()
    page.wait_for_function("window.events.some(e => e.type === 'session.ended')")
    assert GameSession.objects.get(pk=session_id).ended_reason == "deleted"
    calls = len(wallet.calls)
    frame_of(page).evaluate("location.reload()")
    frame.locator("[data-game-ended=true]").wait_for()
    assert len(wallet.calls) == calls


def test_the_link_opens_once_and_not_after_a_minute(service, partner_site, browser_page, seamless_partner, open_table):
    _, api = seamless_partner
    _, url = launch_url(service, api, table=open_table.pk, language="pt-BR", lobby_url=f"{partner_site.origin}/")
    page = browser_page
    page.goto(partner_site.show(url))
    game_frame(page).locator("body[data-table-ready=true]").wait_for()
    page.goto(partner_site.show(url))  # the same link again, in the partner's frame
    gone = game_frame(page)
    gone.locator("[data-launch-gone]").wait_for()
    assert "expirou" in gone.locator("h1").inner_text()
    assert gone.locator("a.button").get_attribute("href") == f"{partner_site.origin}/"
    assert gone.locator("#felt").count() == 0
    session_id, late = launch_url(service, api, table=open_table.pk)
    GameSession.objects.filter(pk=session_id).update(launch_expires_at="2000-01-01T00:00:00Z")
    response = page.goto(late)
    assert response.status == 410 and page.locator("#felt").count() == 0


def test_a_foreign_site_cannot_frame_the_table(service, browser_page, seamless_partner, open_table):
    _, api = seamless_partner
    foreign = PartnerSite("127.0.0.1")  # another port: another origin than the partner's
    try:
        session_id, url = launch_url(service, api, table=open_table.pk)
        page = browser_page
        page.goto(foreign.show(url))
        page.wait_for_timeout(1500)
        framed = page.frame(url=re.compile(r".*/play/.*"))
        assert framed is None or framed.locator("#felt").count() == 0
        # The link was spent on nothing the foreign page could see; the table never showed.
        assert page.frame_locator("#game").locator("#felt").count() == 0
        assert GameSession.objects.get(pk=session_id).opened_at is not None
    finally:
        foreign.close()


def test_a_demo_session_plays_without_any_wallet(
    service, partner_site, browser_page, seamless_partner, wallet, open_table
):
    partner, api = seamless_partner
    session_id, url = launch_url(service, api, path="/api/v1/partner/sessions/demo/", table=open_table.pk)
    give_seed(GameSession.objects.get(pk=session_id).player, seed_dealing("win"))
    page = browser_page
    page.goto(partner_site.show(url, width=360, height=640))
    frame = game_frame(page)
    frame.locator("body[data-table-ready=true]").wait_for()
    frame.locator(".demo-badge").wait_for()
    calls = len(wallet.calls)
    deal_and_settle(page, frame)
    assert len(wallet.calls) == calls  # nothing reached the partner's wallet
    demo = GameSession.objects.select_related("player").get(pk=session_id)
    assert demo.demo and demo.player.partner_id is None
    assert Round.objects.filter(player=demo.player).count() == 1
    assert not Round.objects.filter(player__partner=partner).exists()
    frame.locator("#outcome .paid").wait_for()  # the last line the round writes: the winnings paid
    # The table fits the smallest frame: nothing wider than 360 px, the deal button in reach.
    width = frame_of(page).evaluate("document.documentElement.scrollWidth")
    assert width <= 360
    deal = frame_of(page).evaluate(
        "JSON.parse(JSON.stringify(document.getElementById('deal').getBoundingClientRect()))"
    )
    assert deal["bottom"] <= 640 and deal["right"] <= 360
    bank = frame_of(page).evaluate(
        "JSON.parse(JSON.stringify(document.getElementById('bank').getBoundingClientRect()))"
    )
    assert bank["bottom"] <= 640, bank  # the balance too, at the foot of the felt
    felt = frame_of(page).evaluate("document.getElementById('felt').getBoundingClientRect().bottom")
    assert felt <= 640  # and the felt's own edge, with the winnings-paid line under the result
    page.screenshot(path=SCREENSHOTS / "game-launch-demo-360.png", animations="disabled")
