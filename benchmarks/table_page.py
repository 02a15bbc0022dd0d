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
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import urllib.request

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--username", default="demo")
    parser.add_argument("--password", default=os.environ.get("DEMO_PASSWORD", "casino-war-demo"))
    parser.add_argument("--table", help="a table id (default: the first open table)")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    table = args.table or first_table(args.base_url)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        session = signed_in(browser, args.base_url, args.username, args.password)
        for name, viewport in (("desktop 1280x800", {"width": 1280, "height": 800}),
                               ("phone 390x844", {"width": 390, "height": 844})):  # fmt: skip
            visits = [one_visit(browser, args.base_url, session, table, viewport)
                      for _ in range(args.runs)]  # fmt: skip
            median = {key: statistics.median(v[key] for v in visits if v[key] is not None) for key in visits[0]}
            worst_ready = max(v["ready"] for v in visits)
            print(f"{name}: {median['bytes'] / 1024:.1f} KB transferred in {median['requests']:.0f} responses; "
                  f"interactive at {median['ready']:.0f} ms (median of {len(visits)}, slowest {worst_ready:.0f} ms); "
                  f"DOMContentLoaded {median['dcl']:.0f} ms, load {median['load']:.0f} ms, "
                  f"first contentful paint {median['fcp']:.0f} ms")  # fmt: skip
        browser.close()


if __name__ == "__main__":
    main()
