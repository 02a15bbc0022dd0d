"""Smoke test of the back office in real Chromium: an auditor signs in with password and TOTP code,
opens a round's recall page and a report; screenshots are kept as artifacts."""

import pytest

from tests.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "an-auditor-passphrase"


def test_an_auditor_signs_in_with_two_factors_and_reads_a_round_and_a_report(page, django_user_model):
    from django.contrib.auth.models import Group

    from accounts.roles import AUDITOR
    from accounts.services import roles_sync, staff_totp_enroll
    from casino.services.rounds import round_decide, round_place
    from core.actors import Actor
    from tests.browser import give_seed, seed_with_rounds
    from tests.core.test_admin_site import code
    from tests.factories import TableFactory, make_player

    roles_sync()
    auditor = django_user_model.objects.create_user(username="audra", password=PASSWORD, is_staff=True)
    auditor.groups.add(Group.objects.get(name=AUDITOR))
    device, _ = staff_totp_enroll(username="audra")
    table = TableFactory(name="Audit EUR")
    player = make_player(balance=10_000)
    give_seed(player, seed_with_rounds([True]))
    round_ = round_place(player=player, table_id=table.pk, main_bet=500, actor=Actor.player(player))
    round_decide(player=player, round_id=round_.id, action="war", actor=Actor.player(player))

    page.goto("/admin/")
    page.fill("#id_username", "audra")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_otp_token", "000000" if code(device) != "000000" else "111111")
    page.click("input[type=submit]")
    # The click only starts the form's navigation: wait for the answered page before counting.
    page.wait_for_load_state()
    page.locator(".errornote").wait_for(timeout=10_000)
    assert page.locator(".errornote").count() == 1  # a wrong code keeps the door shut
    page.wait_for_timeout(1_100)  # and makes the device wait a second before it takes another
    page.fill("#id_password", PASSWORD)
    page.fill("#id_otp_token", code(device))
    screenshot(page, "admin-sign-in")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    assert "Overview" in page.inner_text("body")  # the dashboard is the admin's index

    page.goto(f"/admin/casino/round/{round_.id}/change/")
    body = page.inner_text("body")
    assert "Go to war" in body and round_.seed_pair.server_seed_hash in body
    assert page.locator("input[type=submit][name=_save]").count() == 0  # auditors read, never change
    screenshot(page, "admin-round-recall")

    page.goto("/admin/reports/ggr/")
    assert "Audit EUR" in page.inner_text("body") or "EUR" in page.inner_text("body")
    assert page.locator("svg").count() >= 1
    screenshot(page, "admin-report-ggr")
