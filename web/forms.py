"""Sign-up and sign-in forms: shape and length here; the rules (a free name, a strong password)
are the services'."""

from django import forms
from django.utils.translation import gettext_lazy as _


def _text(autocomplete: str, **attrs) -> dict:
    return {"autocomplete": autocomplete, **attrs}


class SignUpForm(forms.Form):
    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        min_length=3,
        widget=forms.TextInput(attrs=_text("username", autofocus=True)),
    )
    email = forms.EmailField(
        label=_("E-mail (optional)"), required=False, widget=forms.EmailInput(attrs=_text("email"))
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs=_text("new-password")),
        help_text=_("At least 8 characters, not only digits, not a common password."),
    )

    # What a regulated casino asks of everyone who signs up: both required, and recorded with the
    # moment (accounts.services.player_signup). The labels are the template's (they hold a link).
    age_confirmed = forms.BooleanField(
        error_messages={
            "required": _("Confirm that you are old enough to play: the casino may not take you otherwise.")
        }
    )
    terms_accepted = forms.BooleanField(error_messages={"required": _("Accept the terms of play to open an account.")})


class SignInForm(forms.Form):
    username = forms.CharField(
        label=_("Username"), max_length=150, widget=forms.TextInput(attrs=_text("username", autofocus=True))
    )
    password = forms.CharField(
        label=_("Password"), strip=False, widget=forms.PasswordInput(attrs=_text("current-password"))
    )


class PasswordChangeForm(forms.Form):
    old_password = forms.CharField(
        label=_("Current password"),
        strip=False,
        widget=forms.PasswordInput(attrs=_text("current-password", autofocus=True)),
    )
    new_password = forms.CharField(
        label=_("New password"),
        strip=False,
        widget=forms.PasswordInput(attrs=_text("new-password")),
        help_text=_("At least 8 characters and hard to guess: a few uncommon words work well."),
    )
    new_password_again = forms.CharField(
        label=_("New password, again"), strip=False, widget=forms.PasswordInput(attrs=_text("new-password"))
    )

    def clean(self):
        data = super().clean()
        if data.get("new_password") and data.get("new_password") != data.get("new_password_again"):
            self.add_error("new_password_again", _("The two new passwords differ."))
        return data
