"""Every main page passes axe-core's checks (WCAG 2 A and AA: contrast, labels, names, landmarks)
in real Chromium, at desktop and at phone width."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browser import PHONE, give_seed, seed_with_rounds, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "an-accessible-passphrase"
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


def audit(page, where: str) -> list[str]:
    results = Axe().run(page, options=WCAG)
    return [f"{where}: {line}" for line in results.generate_snapshot().splitlines()] if results.violations_count else []


def test_the_main_pages_meet_wcag_aa(page, transactional_db):
    from tests.factories import TableFactory, make_player

    table = TableFactory(name="Axe EUR")
    player = make_player(balance=10_000, username="ada")
    player.user.set_password(PASSWORD)
    player.user.save()
    give_seed(player, seed_with_rounds([True, False]))
    problems = []
    for path in ("/", "/rules/", "/signin/", "/signup/", "/terms/", "/war/"):
        page.goto(path)
        problems += audit(page, path)
    sign_in(page, "ada", PASSWORD, f"/tables/{table.pk}/")
    page.click("#deal")
    page.wait_for_selector("#decision:not([hidden])")
    problems += audit(page, "table, deciding a tie")
    page.click("#war")
    page.wait_for_selector("#decision", state="hidden")
    problems += audit(page, "table, after the war")
    for path in ("/wallet/", "/history/", "/fairness/", "/play-safe/"):
        page.goto(path)
        page.wait_for_load_state("networkidle")
        problems += audit(page, path)
    page.goto("/war/")
    page.click("#war-form button[type=submit]")
    page.wait_for_selector("#viewer:not([hidden])")
    page.click("[data-control=step]")
    # A long battle makes its log scroll; force it, so that every run checks it can be reached
    # by keyboard (a random match decides otherwise).
    page.eval_on_selector("#log", "log => { log.style.maxHeight = '1.5rem'; }")
    problems += audit(page, "war viewer")
    page.set_viewport_size(PHONE)
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_selector("#road li")
    problems += audit(page, "table on a phone")
    page.click("#sound")  # sound on: the toggle's pressed state is read out too
    page.click("#deal")
    page.wait_for_selector("#result-banner:not([hidden])")
    page.wait_for_function("() => document.querySelectorAll('#road li').length === 2")
    problems += audit(page, "table on a phone, the result of a round")
    page.goto("/history/")
    problems += audit(page, "history on a phone")
    assert not problems, "\n".join(problems)
