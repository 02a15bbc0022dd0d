"""Four eyes mean four eyes (issue #28, item 1): no staff member, superusers included, reads a
second factor's secret, sets another's password or e-mail, or approves their own adjustment in
a colleague's name. A colleague's password or second factor is reset only with a second staff
member's approval, and the one concerned is told."""

import re

import pytest
from django.contrib.auth.models import Group
from django.core import mail
from django_otp.oath import totp

from accounts.credentials import credential_reset_approve, credential_reset_propose, credential_reset_reject
from accounts.models import CredentialReset, User
from accounts.roles import OPERATOR
from accounts.services import roles_sync, staff_totp_enroll
from core.errors import InvalidInput, StateConflict
from core.models import AuditEvent
from ledger.models import Adjustment
from ledger.services import adjustment_propose
from tests.factories import make_player

pytestmark = pytest.mark.django_db
PASSWORD = "a-staff-passphrase-1"


def staff(username: str, *, superuser: bool = False, role: str | None = OPERATOR) -> User:
    roles_sync()
    user = User.objects.create_user(
        username=username, password=PASSWORD, email=f"{username}@casino.example", is_staff=True, is_superuser=superuser
    )
    if role:
        user.groups.add(Group.objects.get(name=role))
    staff_totp_enroll(username=username)
    return User.objects.get(pk=user.pk)


def code(user: User) -> str:
    device = user.totpdevice_set.get()
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"


def test_the_issues_attack_fails_at_every_step(client):
    """A superuser proposes +1,234.00, reads a colleague's TOTP key, sets the colleague's password
    and e-mail, and approves the adjustment: nothing of it works."""
    root, colleague = staff("root", superuser=True, role=None), staff("colleague")
    device = colleague.totpdevice_set.get()
    adjustment = adjustment_propose(player=make_player(), amount=123_400, reason="goodwill", proposed_by=root)
    client.force_login(root)

    page = client.get(f"/admin/otp_totp/totpdevice/{device.pk}/change/").content.decode()
    assert device.key not in page and device.key.upper() not in page and "otpauth" not in page
    assert "colleague" in page  # the device is listed, its secret is not
    for path in (f"/admin/otp_totp/totpdevice/{device.pk}/config/", f"/admin/otp_totp/totpdevice/{device.pk}/qrcode/"):
        assert client.get(path).status_code in (302, 404)
    assert client.get("/admin/otp_totp/totpdevice/add/").status_code == 403
    assert (
        client.post("/admin/otp_totp/totpdevice/add/", {"user": root.pk, "name": "mine", "key": "00" * 20}).status_code
        == 403
    )
    assert client.post(f"/admin/otp_totp/totpdevice/{device.pk}/delete/", {"post": "yes"}).status_code == 403

    password_page = f"/admin/accounts/user/{colleague.pk}/password/"
    assert client.get(password_page).status_code == 403
    assert (
        client.post(
            password_page, {"password1": "root-knows-it-1", "password2": "root-knows-it-1", "usable_password": "true"}
        ).status_code
        == 403
    )
    change = client.get(f"/admin/accounts/user/{colleague.pk}/change/").content.decode()
    assert 'name="email"' not in change and 'name="username"' not in change
    client.post(
        f"/admin/accounts/user/{colleague.pk}/change/",
        {
            "username": "colleague",
            "email": "root@evil.example",
            "is_active": "on",
            "is_staff": "on",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
        },
    )
    colleague.refresh_from_db()
    assert colleague.check_password(PASSWORD) and colleague.email == "colleague@casino.example"

    client.post("/admin/ledger/adjustment/", {"action": "approve_selected", "_selected_action": [adjustment.pk]})
    adjustment.refresh_from_db()
    assert adjustment.status == "proposed" and adjustment.decided_by is None
    assert not AuditEvent.objects.filter(actor_id=str(colleague.pk)).exclude(action__startswith="staff.").exists()


@pytest.fixture(autouse=True)
def mail_sent_on_commit(django_capture_on_commit_callbacks):
    """E-mails leave after the commit (core/after_commit.py): here, at the end of each `with`."""
    return django_capture_on_commit_callbacks


def test_a_password_reset_needs_a_second_staff_member_and_tells_the_one_concerned(client, mail_sent_on_commit):
    alice, bob, carol = staff("alice"), staff("bob"), staff("carol")
    with mail_sent_on_commit(execute=True):
        reset = credential_reset_propose(user=bob, kind="password", reason="forgot it", proposed_by=alice)
    assert [m.to for m in mail.outbox] == [["bob@casino.example"]] and "alice" in mail.outbox[0].body
    for who in (alice, bob):  # neither the proposer nor the one concerned decides
        with pytest.raises(StateConflict, match="four eyes"):
            credential_reset_approve(reset=reset, approved_by=who, base_url="https://casino.example")
    bob_session = type(client)()
    bob_session.force_login(bob)
    assert bob_session.get("/admin/").status_code == 200
    with mail_sent_on_commit(execute=True):
        credential_reset_approve(reset=reset, approved_by=carol, base_url="https://casino.example")
    bob.refresh_from_db()
    assert not bob.has_usable_password() and bob_session.get("/admin/").status_code == 302  # signed out
    told = mail.outbox[-1]
    assert told.to == ["bob@casino.example"] and "carol" in told.body and "alice" in told.body
    assert all(m.to == ["bob@casino.example"] for m in mail.outbox)  # the link reaches bob alone
    event = AuditEvent.objects.get(action="staff.password_reset")
    assert event.actor_id == str(carol.pk) and event.data["proposed_by"] == alice.pk
    assert event.data["told"] == "bob@casino.example"

    link = re.search(r"https://casino\.example(/admin/password-set/\S+)", told.body).group(1)
    form = client.get(link, follow=True)
    assert form.status_code == 200 and "new_password1" in form.content.decode()
    set_page = form.redirect_chain[-1][0] if form.redirect_chain else link
    weak = client.post(set_page, {"new_password1": "zzzzzzzz", "new_password2": "zzzzzzzz"})
    assert weak.status_code == 200  # Django's validators apply
    done = client.post(set_page, {"new_password1": "bobs-own-new-phrase-7", "new_password2": "bobs-own-new-phrase-7"})
    assert done.status_code == 302
    bob.refresh_from_db()
    assert bob.check_password("bobs-own-new-phrase-7")
    again = client.get(link, follow=True).content.decode()
    assert "new_password1" not in again  # the link worked once
    signed_in = client.post(
        "/admin/login/?next=/admin/", {"username": "bob", "password": "bobs-own-new-phrase-7", "otp_token": code(bob)}
    )
    assert signed_in.status_code == 302 and signed_in.url == "/admin/"


def test_a_second_factor_reset_revokes_it_and_ends_verified_sessions(client, mail_sent_on_commit):
    alice, bob, carol = staff("alice"), staff("bob"), staff("carol")
    client.force_login(bob)
    assert client.get("/admin/").status_code == 200
    reset = credential_reset_propose(user=bob, kind="second_factor", reason="lost phone", proposed_by=alice)
    with mail_sent_on_commit(execute=True):
        credential_reset_approve(reset=reset, approved_by=carol, base_url="https://casino.example")
    assert client.get("/admin/").status_code == 302  # the session's second factor is gone
    assert not bob.totpdevice_set.exists()
    assert AuditEvent.objects.filter(action="staff.second_factor_reset", actor_id=str(carol.pk)).exists()
    assert "staff_totp" in mail.outbox[-1].body


def test_a_rejected_reset_changes_nothing_and_is_told(mail_sent_on_commit):
    alice, bob, carol = staff("alice"), staff("bob"), staff("carol")
    reset = credential_reset_propose(user=bob, kind="password", reason="?", proposed_by=alice)
    with mail_sent_on_commit(execute=True):
        credential_reset_reject(reset=reset, rejected_by=carol)
    bob.refresh_from_db()
    assert bob.check_password(PASSWORD) and "rejected" in mail.outbox[-1].subject
    with pytest.raises(StateConflict):
        credential_reset_approve(reset=reset, approved_by=carol, base_url="https://x.example")


def test_what_cannot_be_proposed():
    alice, bob = staff("alice"), staff("bob")
    player = make_player(username="someone")
    with pytest.raises(InvalidInput, match="staff"):
        credential_reset_propose(user=player.user, kind="password", reason="r", proposed_by=alice)
    with pytest.raises(InvalidInput, match="own"):
        credential_reset_propose(user=alice, kind="password", reason="r", proposed_by=alice)
    User.objects.filter(pk=bob.pk).update(email="")
    bob.refresh_from_db()
    with pytest.raises(InvalidInput, match="e-mail"):
        credential_reset_propose(user=bob, kind="password", reason="r", proposed_by=alice)
    assert not CredentialReset.objects.exists()


def test_resets_are_proposed_and_decided_in_the_back_office(client):
    alice, bob, carol = staff("alice"), staff("bob"), staff("carol")
    client.force_login(staff("root", superuser=True, role=None))
    page = client.get(f"/admin/accounts/user/{bob.pk}/change/").content.decode()
    assert f"/admin/accounts/credentialreset/add/?user={bob.pk}" in page
    client.force_login(alice)  # an operator
    assert client.get(f"/admin/accounts/credentialreset/add/?user={bob.pk}").status_code == 200
    client.post("/admin/accounts/credentialreset/add/", {"user": bob.pk, "kind": "second_factor", "reason": "lost"})
    reset = CredentialReset.objects.get()
    client.post("/admin/accounts/credentialreset/", {"action": "approve_selected", "_selected_action": [reset.pk]})
    assert bob.totpdevice_set.exists()  # the proposer's own approval changed nothing
    client.force_login(carol)
    client.post("/admin/accounts/credentialreset/", {"action": "approve_selected", "_selected_action": [reset.pk]})
    assert not bob.totpdevice_set.exists()


def test_superusers_are_under_four_eyes_on_money_too():
    root = staff("root", superuser=True, role=None)
    adjustment = adjustment_propose(player=make_player(), amount=5_000, reason="r", proposed_by=root)
    from ledger.services import adjustment_approve

    with pytest.raises(StateConflict, match="four eyes"):
        adjustment_approve(adjustment=adjustment, approved_by=root)
    assert Adjustment.objects.get().status == "proposed"
