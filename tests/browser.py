"""Browser tests drive Debian's Chromium (/usr/bin/chromium) through Playwright against a live
server on the test database; settlement runs in-process (eager Celery) so its effects land on
commit as a worker's would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR", Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"))
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def playwright_session():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    # Playwright's sync API runs an event loop in this thread; Django's ORM, used by the test
    # itself between browser steps, refuses to run beside one unless told it is safe here.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:  # one per test session: the sync API allows no second
        yield playwright


@pytest.fixture(scope="session")
def chromium(playwright_session):
    browser = playwright_session.chromium.launch(
        executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
    )
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def blocking_chromium(playwright_session):
    """Chromium that blocks third-party cookies, as Safari does and Chrome's setting can: a cross-site
    frame then has neither cookies nor storage (game launch, tests/web/test_game_launch.py)."""
    browser = playwright_session.chromium.launch(
        executable_path=CHROMIUM,
        args=["--headless", "--no-sandbox", "--disable-gpu", "--test-third-party-cookie-phaseout"],
    )
    yield browser
    browser.close()


@pytest.fixture
def page(chromium, live_server, settings):
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False  # the live server speaks http
    context = chromium.new_context(viewport=DESKTOP, base_url=live_server.url, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def screenshot(page, name: str) -> Path:
    """Save the page at desktop and at phone width as a test artifact."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    original = page.viewport_size
    saved = SCREENSHOTS / f"{name}-desktop.png"
    page.screenshot(path=saved, full_page=True, animations="disabled")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    page.screenshot(path=SCREENSHOTS / f"{name}-phone.png", full_page=True, animations="disabled")
    page.set_viewport_size(original)
    return saved


def sign_in(page, username: str, password: str, next_path: str = "/") -> None:
    page.goto(f"/signin/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url(f"**{next_path}")


def seed_with_rounds(wanted: list[bool], *, decks: int = 6, burn: int = 3) -> str:
    """A server seed whose rounds 0, 1, ... are ties exactly where `wanted` says True."""
    import hashlib

    from casino.engine.verify import verify_round

    for i in range(100_000):
        seed = hashlib.sha256(f"browser-test-{i}".encode()).hexdigest()
        ties = [
            (c := verify_round(server_seed=seed, client_seed="web", nonce=n, decks=decks, burn=burn).cards).player.rank
            == c.dealer.rank
            for n in range(len(wanted))
        ]
        if ties == wanted:
            return seed
    raise AssertionError("no seed found")


def give_seed(player, seed: str) -> None:
    """Fix the player's active seed pair (as a fixture may) so that the test knows the deal."""
    from casino.engine.fairness import server_seed_hash
    from casino.models import SeedPair
    from core import clock

    # Retired as a rotation retires it (revealed), not deleted: rounds may have been played on it.
    SeedPair.objects.filter(player=player, active=True).update(active=False, revealed_at=clock.now())
    SeedPair.objects.create(player=player, server_seed=seed, server_seed_hash=server_seed_hash(seed), client_seed="web")
