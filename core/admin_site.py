"""The back office's admin site: staff sign in with a password and a TOTP code (django-otp).

A staff member without a verified second factor is, for the admin, not staff at all. Every failed
sign-in is audited (a wrong name or password by accounts' receiver of Django's signal, the rest
here) and counted per address and username: beyond STAFF_SIGN_IN_FAILURES_ALLOWED in the window
every attempt is refused (429), the right one too. Whatever failed, the form says the same thing,
so it never tells that a password was right: that the name, password and code did not make a
sign-in, and how long to wait before the next try. The wait follows the count of failures (1 s,
2 s, 4 s...), as django-otp's own back-off after a wrong code does (OTP_TOTP_THROTTLE_FACTOR, 1 s
doubled per failure): a right code sent sooner is refused by the device.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth import views as auth_views
from django.urls import path, reverse, reverse_lazy
from django.utils.translation import gettext_lazy, ngettext_lazy
from django_otp.admin import OTPAdminAuthenticationForm, OTPAdminSite
from django_otp.plugins.otp_totp.models import TOTPDevice

from core.attempts import attempt_failed, attempts_clear, attempts_exhausted, password_check_allowed
from core.audit import audit_record
from core.client_address import client_address

STAFF_SIGN_IN_FAILURES_ALLOWED = 10  # per address and username, per 15 minutes: as players' sign-ins
SIGN_IN_REFUSED = gettext_lazy("Enter the username, the password and the current code of a staff account.")
SIGN_IN_WAIT = ngettext_lazy(
    "Wait %(seconds)d second before the next try.", "Wait %(seconds)d seconds before the next try.", "seconds"
)


def sign_in_refused(failures: int) -> str:
    """The one answer to every failed sign-in: after the n-th failure, wait 2**(n-1) seconds (django-otp
    refuses a code for as long after a wrong one)."""
    return f"{SIGN_IN_REFUSED} {SIGN_IN_WAIT % {'seconds': 2 ** max(0, failures - 1)}}"


SIGN_IN_THROTTLED = gettext_lazy("Too many failed attempts. Wait a few minutes and try again.")


class StaffSignInForm(OTPAdminAuthenticationForm):
    # What the form shows: a staff member holds one authenticator (`staff_totp`), so the form asks
    # for its six-digit code only: no device menu, no challenge button (templates/admin/staff_sign_in.html).
    otp_device = None
    otp_challenge = None
    otp_token = forms.CharField(
        required=False,
        label="Six-digit code",
        help_text="From the authenticator app set up with bin/manage staff_totp.",
        widget=forms.TextInput(
            attrs={
                "autocomplete": "one-time-code",
                "inputmode": "numeric",
                "pattern": "[0-9]{6}",
                "maxlength": 6,
                "required": True,
                "aria-describedby": "otp-token-help",
            }
        ),
    )

    def _address(self) -> str:
        return client_address(self.request)

    def _audit(self, action: str, username: str, user=None) -> None:
        audit_record(
            actor_type="anonymous",
            actor_id=username or "-",
            action=action,
            obj_type="user",
            obj_id=user.pk if user is not None else username or "-",
            ip=self._address(),
        )

    def clean(self):
        username = str(self.cleaned_data.get("username") or "")
        attempts = f"staff-signin:{self._address()}:{username.lower()}"
        if attempts_exhausted(key=attempts, limit=STAFF_SIGN_IN_FAILURES_ALLOWED) or not password_check_allowed(
            address=self._address()
        ):
            self._audit("sign_in.throttled", username)
            raise forms.ValidationError(SIGN_IN_THROTTLED, code="throttled")
        try:
            cleaned_data = super().clean()
        except forms.ValidationError:
            user, self.user_cache = self.user_cache, None  # the page shows nothing a right password would
            self.data = self.data.copy()
            self.data["otp_token"] = ""  # a code is asked for afresh
            if user is not None and not (user.is_active and user.is_staff):
                self._audit("sign_in.not_staff", username, user)
            failures = attempt_failed(key=attempts)
            raise forms.ValidationError(sign_in_refused(failures), code="invalid_login") from None
        if self.user_cache is not None:
            attempts_clear(key=attempts)
        return cleaned_data

    def _update_form(self, user):
        """django-otp lists the user's devices and keeps the typed password once the password is
        right; the refused form stays as it was, whatever was right."""

    def _chosen_device(self, user):
        """Staff hold one authenticator (`staff_totp`): use it unless the form named another."""
        device = super()._chosen_device(user)
        if device is None:
            device = TOTPDevice.objects.filter(user=user, confirmed=True).order_by("pk").first()
        return device

    def clean_otp(self, user):
        try:
            super().clean_otp(user)
        except forms.ValidationError:
            if user is not None:
                self._audit("sign_in.second_factor_failed", user.username, user)
            raise


class StaffPasswordSetView(auth_views.PasswordResetConfirmView):
    """The one-time link a staff member is e-mailed when a reset of their password was approved
    (accounts/credentials.py): they choose the new password; nobody else ever sees or sets it."""

    admin_site = None
    success_url = reverse_lazy("admin:staff_password_set_done")

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), **self.admin_site.each_context(self.request)}


class StaffPasswordSetDoneView(auth_views.PasswordResetCompleteView):
    admin_site = None

    def get_context_data(self, **kwargs):
        context = {**super().get_context_data(**kwargs), **self.admin_site.each_context(self.request)}
        return {**context, "login_url": reverse("admin:login")}


class CasinoAdminSite(OTPAdminSite):
    login_form = StaffSignInForm
    login_template = "admin/staff_sign_in.html"
    site_header = "Casino War back office"
    site_title = "Casino War back office"

    def __init__(self, name: str = "admin") -> None:
        super().__init__(name)

    def get_urls(self):
        return [
            path(
                "password-set/<uidb64>/<token>/",
                StaffPasswordSetView.as_view(admin_site=self),
                name="staff_password_set",
            ),
            path(
                "password-set/done/", StaffPasswordSetDoneView.as_view(admin_site=self), name="staff_password_set_done"
            ),
            *super().get_urls(),
        ]

    def login(self, request, extra_context=None):
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        if form is not None and any(error.code == "throttled" for error in form.non_field_errors().as_data()):
            response.status_code = 429
        return response
