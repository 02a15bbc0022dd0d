"""Staff sign in to the back office with a password and a TOTP code, and are signed out when idle."""

import time

import pytest
from django.core.management import CommandError, call_command
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.services import staff_totp_enroll
from core.middleware import LAST_SEEN
from core.models import AuditEvent

pytestmark = pytest.mark.django_db
PASSWORD = "a-staff-passphrase-1"


@pytest.fixture
def auditor(django_user_model):
    user = django_user_model.objects.create_user(username="audrey", password=PASSWORD, is_staff=True)
    device, _ = staff_totp_enroll(username="audrey")
    return user, device


def code(device: TOTPDevice) -> str:
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):0{device.digits}d}"


def sign_in(client, token: str = ""):
    return client.post("/admin/login/?next=/admin/", {"username": "audrey", "password": PASSWORD, "otp_token": token})


def test_a_password_alone_does_not_open_the_back_office(client, auditor):
    response = sign_in(client)
    assert response.status_code == 200  # the form again, asking for the code
    assert client.get("/admin/").status_code == 302
    assert AuditEvent.objects.filter(action="sign_in.second_factor_failed", actor_id="audrey").exists()


def test_a_wrong_code_is_refused_and_recorded(client, auditor):
    _, device = auditor
    wrong = f"{(int(code(device)) + 1) % 1_000_000:06d}"
    assert sign_in(client, wrong).status_code == 200
    assert client.get("/admin/").status_code == 302
    assert AuditEvent.objects.filter(action="sign_in.second_factor_failed").count() == 1


def test_password_and_code_open_the_back_office_and_the_sign_in_is_recorded(client, auditor):
    user, device = auditor
    response = sign_in(client, code(device))
    assert response.status_code == 302 and response.url == "/admin/"
    assert client.get("/admin/").status_code == 200
    assert AuditEvent.objects.filter(action="staff.signed_in", actor_id=str(user.pk)).exists()


def test_a_session_without_the_second_factor_is_not_staff_for_the_admin_or_the_reports(client, auditor):
    user, _ = auditor
    client.force_login_password_only(user)
    assert client.get("/admin/").status_code == 302
    assert client.get("/admin/reports/ggr/").status_code == 302


def test_an_idle_staff_session_ends(client, auditor, settings):
    user, _ = auditor
    client.force_login(user)
    assert client.get("/admin/").status_code == 200
    session = client.session
    session[LAST_SEEN] = time.time() - settings.STAFF_SESSION_IDLE_MINUTES * 60 - 5
    session.save()
    response = client.get("/admin/")
    assert response.status_code == 302 and response.url.startswith("/admin/login/")
    assert client.get("/admin/").status_code == 302  # signed out, not just redirected once
    assert AuditEvent.objects.filter(action="staff.session_timed_out", object_id=str(user.pk)).exists()


def test_an_active_staff_session_goes_on(client, auditor):
    user, _ = auditor
    client.force_login(user)
    for _ in range(3):
        assert client.get("/admin/").status_code == 200


def test_enrolment_keeps_a_device_unless_replaced_and_the_command_prints_the_address(auditor, capsys, settings):
    user, device = auditor
    assert staff_totp_enroll(username="audrey") == (device, False)
    call_command("staff_totp", "--username", "audrey", "--replace", "--no-qr")
    out = capsys.readouterr().out
    assert "otpauth://totp/" in out and "issuer=Casino%20War" in out
    assert TOTPDevice.objects.filter(user=user).count() == 1 and not TOTPDevice.objects.filter(pk=device.pk).exists()
    settings.DEBUG = False
    with pytest.raises(CommandError, match="demo servers"):
        call_command("staff_totp", "--username", "audrey", "--code")
    with pytest.raises(CommandError, match="no staff user"):
        call_command("staff_totp", "--username", "nobody")


# --- guessing: one answer for every failure, each audited, refused after too many --------------------


def wrong(device: TOTPDevice) -> str:
    return f"{(int(code(device)) + 1) % 1_000_000:06d}"


def refusal(response) -> tuple[list[str], str]:
    """What the page says and shows: its errors, and the form without its CSRF token."""
    page = response.content.decode()
    form = page[page.index('<form action="') : page.index("</form>")]
    form = form[: form.index("csrfmiddlewaretoken")] + form[form.index('name="username"') :]
    return [str(error) for error in response.context["form"].non_field_errors()], form


def test_every_failure_gets_the_same_answer_so_the_form_never_tells_a_right_password(
    client, auditor, django_user_model
):
    _, device = auditor
    django_user_model.objects.create_user(username="patty", password=PASSWORD)  # a player: not staff
    attempts = [
        {"username": "nobody", "password": PASSWORD, "otp_token": code(device)},
        {"username": "audrey", "password": "wrong", "otp_token": code(device)},
        {"username": "audrey", "password": PASSWORD, "otp_token": wrong(device)},
        {"username": "audrey", "password": PASSWORD, "otp_token": ""},
        {"username": "patty", "password": PASSWORD, "otp_token": "123456"},
    ]
    answers = []
    for n, attempt in enumerate(attempts):  # each one a first failure (of its address), so the wait is alike
        response = client.post("/admin/login/?next=/admin/", attempt, REMOTE_ADDR=f"203.0.113.{n + 1}")
        assert response.status_code == 200
        errors, form = refusal(response)
        answers.append((errors, form.replace(attempt["username"], "NAME")))
    assert all(answer == answers[0] for answer in answers), answers
    assert answers[0][0] == [
        "Enter the username, the password and the current code of a staff account. Wait 1 second before the next try."
    ]
    assert PASSWORD not in answers[0][1] and "otp_device" not in answers[0][1]
    actions = sorted(AuditEvent.objects.filter(action__startswith="sign_in.").values_list("action", flat=True))
    assert actions == [
        "sign_in.failed",
        "sign_in.failed",
        "sign_in.not_staff",
        "sign_in.second_factor_failed",
        "sign_in.second_factor_failed",
    ]


def test_after_a_wrong_code_the_answer_says_how_long_to_wait_and_then_the_right_code_signs_in(client, auditor):
    """django-otp refuses any code for a second after a wrong one (two after two...): a right code
    sent at once was refused with no word of why. The one answer to every failure now says how
    long to wait, and after that wait the right code signs in."""
    _, device = auditor
    first = sign_in(client, wrong(device))
    assert refusal(first)[0] == [
        "Enter the username, the password and the current code of a staff account. Wait 1 second before the next try."
    ]
    too_soon = sign_in(client, code(device))  # refused by the device's back-off
    assert refusal(too_soon)[0][0].endswith("Wait 2 seconds before the next try.")
    time.sleep(1.2)  # the device's back-off after one wrong code (the page said 2 s: it never says too little)
    assert sign_in(client, code(device)).status_code == 302
    again = client.post("/admin/login/?next=/admin/", {"username": "audrey", "password": "wrong", "otp_token": ""})
    assert refusal(again)[0][0].endswith("Wait 1 second before the next try.")  # a sign-in cleared the count


def test_thirty_wrong_passwords_are_refused_after_ten_and_so_is_the_right_one_then(client, auditor):
    from core.admin_site import STAFF_SIGN_IN_FAILURES_ALLOWED

    _, device = auditor
    statuses = [
        client.post(
            "/admin/login/", {"username": "audrey", "password": f"guess-{n}", "otp_token": "000000"}
        ).status_code
        for n in range(30)
    ]
    assert statuses == [200] * STAFF_SIGN_IN_FAILURES_ALLOWED + [429] * (30 - STAFF_SIGN_IN_FAILURES_ALLOWED)
    refused = sign_in(client, code(device))
    assert refused.status_code == 429 and "Too many failed attempts" in refused.content.decode()
    assert client.get("/admin/").status_code == 302
    assert AuditEvent.objects.filter(action="sign_in.failed").count() == STAFF_SIGN_IN_FAILURES_ALLOWED
    assert AuditEvent.objects.filter(action="sign_in.throttled").count() == 30 - STAFF_SIGN_IN_FAILURES_ALLOWED + 1


def test_wrong_codes_count_too_and_a_sign_in_clears_the_count(client, auditor):
    from core.admin_site import STAFF_SIGN_IN_FAILURES_ALLOWED

    _, device = auditor
    for _ in range(STAFF_SIGN_IN_FAILURES_ALLOWED - 1):
        assert sign_in(client, "").status_code == 200
    device.throttle_reset()  # django-otp's own back-off would refuse the next code for a while
    assert sign_in(client, code(device)).status_code == 302
    client.logout()
    for _ in range(STAFF_SIGN_IN_FAILURES_ALLOWED):
        assert sign_in(client, "").status_code == 200
    assert sign_in(client, "").status_code == 429


def test_the_count_is_per_address_and_username(client, auditor):
    from core.admin_site import STAFF_SIGN_IN_FAILURES_ALLOWED

    _, device = auditor
    for _ in range(STAFF_SIGN_IN_FAILURES_ALLOWED):
        client.post(
            "/admin/login/", {"username": "audrey", "password": "guess", "otp_token": ""}, REMOTE_ADDR="203.0.113.9"
        )
    assert (
        client.post(
            "/admin/login/", {"username": "audrey", "password": "guess", "otp_token": ""}, REMOTE_ADDR="203.0.113.9"
        ).status_code
        == 429
    )
    assert sign_in(client, code(device)).status_code == 302  # another address


def test_the_sign_in_asks_for_a_six_digit_code_and_offers_no_device_menu_or_challenge(client, auditor):
    for response in (client.get("/admin/login/"), sign_in(client, "")):  # also once the password is known
        page = response.content.decode()
        assert "<select" not in page and "otp_device" not in page and "otp_challenge" not in page
        assert "Get OTP Challenge" not in page and "OTP Device" not in page and "OTP Token" not in page
        assert 'name="otp_token"' in page and "Six-digit code" in page and 'autocomplete="one-time-code"' in page
        assert 'inputmode="numeric"' in page and 'pattern="[0-9]{6}"' in page
    assert client.get("/admin/").status_code == 302
