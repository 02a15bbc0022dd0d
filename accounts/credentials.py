"""Resetting a staff member's password or second factor: four eyes, and the one concerned is told.

Nobody in the back office, superusers included, sets another's password, reads or adds a second
factor's secret, or signs in as someone else: with another's credentials one could approve one's
own adjustment in their name. When a staff member has lost a password or an authenticator, a
colleague proposes the reset (`credential_reset_propose`) and another, who is neither the
proposer nor the one concerned, approves it (`credential_reset_approve`). Approved:

* a password reset makes the password unusable at once (every session of it ends) and e-mails the
  staff member a one-time link to set a new one (Django's password-reset token: it stops working
  once used, after PASSWORD_RESET_TIMEOUT, and at any sign-in);
* a second-factor reset revokes their authenticators (their verified sessions end); a new one is
  enrolled as the first was, by whoever runs the server (`manage.py staff_totp`).

The staff member is e-mailed (settings.EMAIL_BACKEND) when the reset is proposed and when it is
decided, so that a reset they did not ask for is noticed; every step is in the audit log, with
the address told.
"""

from __future__ import annotations

import functools
import logging

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import CredentialReset, CredentialResetKind, CredentialResetStatus, User
from core.actors import ActorType
from core.after_commit import after_commit
from core.audit import audit_record
from core.errors import InvalidInput, StateConflict

logger = logging.getLogger(__name__)
WHAT = {CredentialResetKind.PASSWORD: "password", CredentialResetKind.SECOND_FACTOR: "second factor (authenticator)"}


def _tell(user: User, subject: str, body: str) -> None:
    """E-mail the staff member once the transaction commits (a mail server down never undoes the reset)."""
    after_commit(functools.partial(send_mail, subject, body, None, [user.email]), what=f"telling {user.pk} by e-mail")


def credential_reset_propose(*, user: User, kind: str, reason: str, proposed_by: User) -> CredentialReset:
    """Propose resetting `user`'s password or second factor; another staff member decides."""
    if kind not in CredentialResetKind.values:
        raise InvalidInput(gettext("a reset is of a password or of a second factor"))
    if not (user.is_staff or user.is_superuser):
        raise InvalidInput(gettext("only a staff member's credentials are reset here"))
    if user.pk == proposed_by.pk:
        raise InvalidInput(gettext("your own password changes at 'Change password'; a colleague proposes your reset"))
    if not reason.strip():
        raise InvalidInput(gettext("a reset needs a reason"))
    if not user.email:
        raise InvalidInput(gettext("%(name)s has no e-mail address: the reset could not reach them") % {"name": user})
    with transaction.atomic():
        reset = CredentialReset.objects.create(user=user, kind=kind, reason=reason.strip(), proposed_by=proposed_by)
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=proposed_by.pk,
            action="staff.credential_reset_proposed",
            obj_type="user",
            obj_id=user.pk,
            reset=reset.pk,
            kind=kind,
            told=user.email,
        )
        _tell(
            user,
            f"Casino War: {proposed_by} proposed resetting your {WHAT[kind]}",
            f"{proposed_by} proposed resetting your {WHAT[kind]} in the Casino War back office "
            f"({reason.strip()}). Another staff member must approve it before anything changes.\n\n"
            "If you did not ask for this, tell your security officer now.\n",
        )
    return reset


def _decidable(reset: CredentialReset, staff: User) -> CredentialReset:
    reset = CredentialReset.objects.select_for_update().select_related("user", "proposed_by").get(pk=reset.pk)
    if reset.status != CredentialResetStatus.PROPOSED:
        raise StateConflict(gettext("this reset was already decided"))
    if staff.pk in (reset.proposed_by_id, reset.user_id):
        raise StateConflict(
            gettext("a staff member who neither proposed the reset nor is concerned by it decides it (four eyes)")
        )
    return reset


def credential_reset_approve(*, reset: CredentialReset, approved_by: User, base_url: str) -> CredentialReset:
    """Apply the reset (the module's docstring); `base_url` is where the back office is served
    (the e-mailed link's start, e.g. https://casino.example)."""
    with transaction.atomic():
        reset = _decidable(reset, approved_by)
        user = User.objects.select_for_update().get(pk=reset.user_id)
        if reset.kind == CredentialResetKind.PASSWORD:
            user.set_unusable_password()  # the old one stops now, and with it every session of it
            user.save(update_fields=["password"])
            uid, token = urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)
            link = base_url.rstrip("/") + reverse("admin:staff_password_set", args=[uid, token])
            hours = settings.PASSWORD_RESET_TIMEOUT // 3600
            body = (
                f"Your password in the Casino War back office was reset: {reset.proposed_by} proposed it "
                f"({reset.reason}) and {approved_by} approved it. Your old password no longer works.\n\n"
                f"Set a new one here (the link works once, for {hours} hours):\n{link}\n\n"
                "If you did not ask for this, tell your security officer now.\n"
            )
            action = "staff.password_reset"
        else:
            revoked, _ = TOTPDevice.objects.filter(user=user).delete()
            body = (
                f"Your second factor ({revoked} authenticator(s)) in the Casino War back office was revoked: "
                f"{reset.proposed_by} proposed it ({reset.reason}) and {approved_by} approved it. Whoever runs "
                "the server enrolls your new one (manage.py staff_totp).\n\n"
                "If you did not ask for this, tell your security officer now.\n"
            )
            action = "staff.second_factor_reset"
        reset.status, reset.decided_by, reset.decided_at = CredentialResetStatus.APPROVED, approved_by, timezone.now()
        reset.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=approved_by.pk,
            action=action,
            obj_type="user",
            obj_id=user.pk,
            reset=reset.pk,
            proposed_by=reset.proposed_by_id,
            told=user.email,
        )
        _tell(user, f"Casino War: your {WHAT[reset.kind]} was reset", body)
    return reset


def credential_reset_reject(*, reset: CredentialReset, rejected_by: User) -> CredentialReset:
    with transaction.atomic():
        reset = _decidable(reset, rejected_by)
        reset.status, reset.decided_by, reset.decided_at = CredentialResetStatus.REJECTED, rejected_by, timezone.now()
        reset.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=rejected_by.pk,
            action="staff.credential_reset_rejected",
            obj_type="user",
            obj_id=reset.user_id,
            reset=reset.pk,
            told=reset.user.email,
        )
        _tell(
            reset.user,
            f"Casino War: the reset of your {WHAT[reset.kind]} was rejected",
            f"{rejected_by} rejected resetting your {WHAT[reset.kind]} (proposed by {reset.proposed_by}). "
            "Nothing changed.\n",
        )
    return reset
