"""The back office's admin site: staff sign in with a password and a TOTP code (django-otp).

A staff member without a verified second factor is, for the admin, not staff at all. A wrong or
missing code is recorded in the audit log like a wrong password.
"""

from __future__ import annotations

from django import forms
from django_otp.admin import OTPAdminAuthenticationForm, OTPAdminSite

from core.audit import audit_record


class StaffSignInForm(OTPAdminAuthenticationForm):
    # What the form shows: a staff member holds one authenticator (`staff_totp`), so the form asks
    # for its six-digit code only: no device menu, no challenge button (templates/admin/staff_sign_in.html).
    otp_device = None
    otp_challenge = None
    otp_token = forms.CharField(
        required=False, label="Six-digit code",
        help_text="From the authenticator app set up with bin/manage staff_totp.",
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "pattern": "[0-9]{6}",
                                      "maxlength": 6, "required": True, "aria-describedby": "otp-token-help"}),
    )  # fmt: skip

    def _chosen_device(self, user):
        """Staff hold one authenticator (`staff_totp`): use it unless the form named another."""
        from django_otp.plugins.otp_totp.models import TOTPDevice

        device = super()._chosen_device(user)
        if device is None:
            device = TOTPDevice.objects.filter(user=user, confirmed=True).order_by("pk").first()
        return device

    def clean_otp(self, user):
        try:
            super().clean_otp(user)
        except forms.ValidationError:
            if user is not None:
                ip = (self.request.META.get("REMOTE_ADDR", "") if self.request else "")[:45]
                audit_record(actor_type="anonymous", actor_id=user.username, action="sign_in.second_factor_failed",
                             obj_type="user", obj_id=user.pk, ip=ip)  # fmt: skip
            raise


class CasinoAdminSite(OTPAdminSite):
    login_form = StaffSignInForm
    login_template = "admin/staff_sign_in.html"
    site_header = "Casino War back office"
    site_title = "Casino War back office"

    def __init__(self, name: str = "admin") -> None:
        super().__init__(name)
