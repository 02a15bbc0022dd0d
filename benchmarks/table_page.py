"""The Casino War table page in Chromium: bytes transferred and time to interactive.

Against a running server (bin/serve, or gunicorn as production runs it) with a player login:

    .venv/bin/python benchmarks/table_page.py --base-url http://127.0.0.1:8000 --username demo \
        --password casino-war-demo --runs 10

Each run is a fresh browser context (an empty cache, as a first visit) with a signed-in
session's cookies that opens the table page. It counts every response of the page's load and of the calls its scripts make at
start (the rounds, the session figures), as the network carried them (headers and encoded bodies,
so compression counts), and reads when the page became interactive: the `cw-table-ready` mark that
table.js sets once the chips, the bets and every control are wired, measured from the start of
the navigation. It also prints DOMContentLoaded, the load event and the first contentful paint.

With a partner's key (`--launch-key`, `--launch-secret`: a partner made with `partner_create
--origin http://localhost:8101`, the service run with OUTBOUND_ALLOW_PRIVATE=true), it also measures
the table as a partner launches it (API.md "Game launch"): a partner's page on another site
(`localhost` when the service is `127.0.0.1`, and the reverse) frames a fresh launch URL per visit,
in Chromium with third-party cookies blocked, and the same figures are read inside the frame. Both
ways it then deals `--deals` rounds and measures deal-to-result: from the click on Deal to the
result on the felt (cards dealt and turned, the outcome written), ties surrendered and not counted.
The own table and the launched one take turns within each of `--passes` passes; every pass is
printed.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import secrets
import statistics
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def first_table(base_url: str) -> str:
    with urllib.request.urlopen(f"{base_url}/api/v1/tables/") as response:
        tables = json.load(response)
    rows = tables["results"] if isinstance(tables, dict) else tables
    return str(rows[0]["id"])


def signed_in(browser, base_url: str, username: str, password: str) -> dict:
    """The cookies of a signed-in session, from a context of its own (whose cache is then dropped)."""
    context = browser.new_context(base_url=base_url)
    page = context.new_page()
    page.goto("/signin/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_load_state("networkidle")
    state = context.storage_state()
    context.close()
    return state


def one_visit(browser, base_url: str, session: dict, table: str, viewport: dict) -> dict:
    context = browser.new_context(base_url=base_url, viewport=viewport, storage_state=session)
    page = context.new_page()
    responses = []
    page.on("requestfinished", lambda request: responses.append(request))
    page.goto(f"/tables/{table}/", wait_until="load")
    page.wait_for_selector("body[data-table-ready=true]")
    page.wait_for_load_state("networkidle")
    timing = page.evaluate("""() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const ready = performance.getEntriesByName('cw-table-ready')[0];
      const paint = performance.getEntriesByName('first-contentful-paint')[0];
      return { ready: ready.startTime, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
               fcp: paint ? paint.startTime : null };
    }""")
    transferred = 0
    for request in responses:
        sizes = request.sizes()
        transferred += sizes["responseHeadersSize"] + sizes["responseBodySize"]
    context.close()
    return {**timing, "bytes": transferred, "requests": len(responses)}


# Deal one round and wait for its result on the felt; a tie is surrendered and not counted.
DEAL = """async () => {
  const outcome = document.getElementById('outcome');
  await new Promise((resolve) => {
    const ready = () => (document.getElementById('deal').disabled ? setTimeout(ready, 20) : resolve());
    ready();
  });
  outcome.className = 'outcome';  // the last round's result is no longer the one awaited
  const start = performance.now();
  document.getElementById('deal').click();
  return await new Promise((resolve) => {
    setTimeout(() => resolve(null), 15000);  // a refused or lost round: not counted
    const check = () => {
      if (!document.getElementById('decision').hidden) {
        document.getElementById('surrender').click();
        const settle = () => (/\\b(up|down|even)\\b/.test(outcome.className) ? resolve(null) : setTimeout(settle, 20));
        return settle();
      }
      if (/\\b(up|down|even)\\b/.test(outcome.className)) return resolve(performance.now() - start);
      requestAnimationFrame(check);
    };
    check();
  });
}"""

TIMING = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const ready = performance.getEntriesByName('cw-table-ready')[0];
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  return { ready: ready.startTime, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
           fcp: paint ? paint.startTime : null };
}"""


def deals(frame, count: int) -> list[float]:
    """Deal-to-result times (ms) of `count` rounds that resolved at once."""
    times: list[float] = []
    for _ in range(count * 3):
        took = frame.evaluate(DEAL)
        if took is not None:
            times.append(took)
        if len(times) == count:
            break
    return times


def own_table(browser, base_url: str, session: dict, table: str, viewport: dict, count: int) -> dict:
    context = browser.new_context(base_url=base_url, viewport=viewport, storage_state=session)
    page = context.new_page()
    page.goto(f"/tables/{table}/", wait_until="load")
    page.wait_for_selector("body[data-table-ready=true]")
    page.wait_for_load_state("networkidle")
    timing = page.evaluate(TIMING)
    dealt = deals(page, count)
    context.close()
    return {**timing, "deals": dealt}


class PartnerPage:
    """The partner's page on the other site: it frames whatever launch URL `show` was given."""

    def __init__(self, host: str, port: int) -> None:
        site = self
        self.src = "about:blank"

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = (
                    f'<!doctype html><title>partner</title><body style="margin:0">'
                    f'<iframe id="game" src="{site.src}" width="1280" height="800" style="border:0">'
                    f"</iframe></body>"
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://{host}:{port}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def signed(base_url: str, key: str, secret: str, method: str, path: str, body: dict | None = None) -> dict:
    raw = b"" if body is None else json.dumps(body).encode()
    timestamp, nonce = str(int(time.time())), secrets.token_hex(16)
    signature = hmac.new(
        secret.encode(), f"{timestamp}.{nonce}.{method}.{path}.".encode() + raw, hashlib.sha256
    ).hexdigest()
    headers = {
        "Content-Type": "application/json",
        "X-Partner-Key": key,
        "X-Timestamp": timestamp,
        "X-Nonce": nonce,
        "X-Signature": signature,
        "Idempotency-Key": nonce,
    }
    request = urllib.request.Request(
        base_url + path, data=raw if body is not None else None, headers=headers, method=method
    )
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read() or b"null")


def launched_table(
    browser, base_url: str, partner: PartnerPage, launch, table: str, viewport: dict, count: int
) -> dict:
    partner.src = launch(table)
    context = browser.new_context(viewport={"width": viewport["width"], "height": viewport["height"] + 40})
    page = context.new_page()
    frame_responses = []
    page.on(
        "requestfinished", lambda request: frame_responses.append(request) if request.frame != page.main_frame else None
    )
    page.goto(partner.url)
    page.frame_locator("#game").locator("body[data-table-ready=true]").wait_for(timeout=30_000)
    page.wait_for_load_state("networkidle")
    page.evaluate(
        f"document.getElementById('game').width = {viewport['width']};"
        f"document.getElementById('game').height = {viewport['height']}"
    )
    frame = next(f for f in page.frames if "/play/" in f.url)
    timing = frame.evaluate(TIMING)
    transferred = sum(r.sizes()["responseHeadersSize"] + r.sizes()["responseBodySize"] for r in frame_responses)
    dealt = deals(frame, count)
    context.close()
    return {**timing, "deals": dealt, "bytes": transferred, "requests": len(frame_responses)}


def summary(name: str, visits: list[dict]) -> str:
    median = {
        key: statistics.median(v[key] for v in visits if v.get(key) is not None) for key in ("ready", "dcl", "fcp")
    }
    dealt = [t for v in visits for t in v["deals"]]
    text = (
        f"{name}: first contentful paint {median['fcp']:.0f} ms, interactive {median['ready']:.0f} ms "
        f"(median of {len(visits)}, slowest {max(v['ready'] for v in visits):.0f} ms)"
    )
    if dealt:
        text += (
            f"; deal to result {statistics.median(dealt):.0f} ms (median of {len(dealt)}, slowest {max(dealt):.0f} ms)"
        )
    return text


def compare(args, browser, session, table) -> None:
    """The own table and the launched one, taking turns, `--passes` times; every pass printed."""
    service = urlsplit(args.base_url)
    other = "localhost" if service.hostname == "127.0.0.1" else "127.0.0.1"
    partner = PartnerPage(other, args.partner_port)

    def launch(table_id: str) -> str:
        path = f"/api/v1/partner/players/{args.launch_player}/sessions/"
        answer = signed(
            args.base_url, args.launch_key, args.launch_secret, "POST", path, {"table": table_id, "language": "en"}
        )
        return args.base_url + urlsplit(answer["url"]).path

    signed(
        args.base_url,
        args.launch_key,
        args.launch_secret,
        "PUT",
        f"/api/v1/partner/players/{args.launch_player}/",
        {"currency": "EUR"},
    )
    try:
        signed(
            args.base_url,
            args.launch_key,
            args.launch_secret,
            "POST",
            f"/api/v1/partner/players/{args.launch_player}/transfers/",
            {"direction": "in", "amount": 100_000, "reference": secrets.token_hex(8)},
        )
    except urllib.error.HTTPError as error:  # a seamless partner: its wallet holds the money
        if error.code != 422:
            raise
    for name, viewport in (
        ("desktop 1280x800", {"width": 1280, "height": 800}),
        ("phone 360x640", {"width": 360, "height": 640}),
    ):
        for n in range(1, args.passes + 1):
            own, framed = [], []
            for _ in range(args.runs):
                own.append(own_table(browser, args.base_url, session, table, viewport, args.deals))
                framed.append(
                    launched_table(args.blocking, args.base_url, partner, launch, table, viewport, args.deals)
                )
            print(f"pass {n} {summary(f'{name} own table', own)}")
            print(f"pass {n} {summary(f'{name} launched, in a cross-site frame', framed)}")
    partner.server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--username", default="demo")
    parser.add_argument("--password", default=os.environ.get("DEMO_PASSWORD", "casino-war-demo"))
    parser.add_argument("--table", help="a table id (default: the first open table)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--launch-key", help="a partner's key: also measure the table it launches in a frame")
    parser.add_argument("--launch-secret")
    parser.add_argument("--launch-player", default="bench-player")
    parser.add_argument("--partner-port", type=int, default=8101, help="the partner page's port (its origin's)")
    parser.add_argument("--deals", type=int, default=5, help="rounds dealt per visit for deal-to-result")
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    table = args.table or first_table(args.base_url)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        session = signed_in(browser, args.base_url, args.username, args.password)
        if args.launch_key:
            args.blocking = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--test-third-party-cookie-phaseout"]
            )
            compare(args, browser, session, table)
            args.blocking.close()
            browser.close()
            return
        for name, viewport in (
            ("desktop 1280x800", {"width": 1280, "height": 800}),
            ("phone 390x844", {"width": 390, "height": 844}),
        ):
            visits = [one_visit(browser, args.base_url, session, table, viewport) for _ in range(args.runs)]
            median = {key: statistics.median(v[key] for v in visits if v[key] is not None) for key in visits[0]}
            worst_ready = max(v["ready"] for v in visits)
            print(
                f"{name}: {median['bytes'] / 1024:.1f} KB transferred in {median['requests']:.0f} responses; "
                f"interactive at {median['ready']:.0f} ms (median of {len(visits)}, slowest {worst_ready:.0f} ms); "
                f"DOMContentLoaded {median['dcl']:.0f} ms, load {median['load']:.0f} ms, "
                f"first contentful paint {median['fcp']:.0f} ms"
            )
        browser.close()


if __name__ == "__main__":
    main()
