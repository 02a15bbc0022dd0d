"""Shapes of the requests to the accounts API: sign-up, sign-in, partners' players and transfers
(validated); its answers are accounts/shapes.py's."""

from __future__ import annotations

from django.core.validators import ProhibitNullCharactersValidator
from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from accounts.models import TransferDirection, User
from accounts.services import PASSWORD_MAX_LENGTH
from accounts.usernames import MAX_LENGTH, MIN_LENGTH, RULES
from core.api import EnumField, PrintableTextField, StrictCharField, StrictChoiceField
from ledger.money import CURRENCIES
from ledger.serializers import MinorUnitsField


class ConfirmationField(serializers.BooleanField):
    """A confirmation the person gives: JSON `true`, or left out; `false` or anything else is refused
    (the web form requires it; an API caller, bound by the contract's sign-up, may leave it out)."""

    default_error_messages = {"invalid": gettext_lazy("%(name)s is true (confirmed) or left out")}

    def to_internal_value(self, data):
        if data is not True:
            raise serializers.ValidationError(
                self.error_messages["invalid"] % {"name": self.field_name}, code="invalid"
            )
        return True


class SignupSerializer(serializers.Serializer):
    username = StrictCharField(min_length=MIN_LENGTH, max_length=MAX_LENGTH, help_text=f"A username is {RULES}.")
    password = StrictCharField(
        write_only=True,
        min_length=8,
        max_length=PASSWORD_MAX_LENGTH,
        help_text="At least 8 characters, not only digits, not a common password, no control characters.",
    )
    email = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=User._meta.get_field("email").max_length,
        help_text="An e-mail address (optional).",
    )
    age_confirmed = ConfirmationField(
        required=False,
        help_text="true: the player confirms being of the casino's minimum age (18 or more); recorded "
        "with the moment (an addition to the contract: left out, nothing is recorded).",
    )
    terms_accepted = ConfirmationField(
        required=False,
        help_text="true: the player accepts the terms of play (/terms/); recorded with the moment and "
        "the terms' version (an addition to the contract).",
    )


ProhibitedCharacters = (ProhibitNullCharactersValidator, ProhibitSurrogateCharactersValidator)


class CredentialField(StrictCharField):
    """A username or a password typed at sign-in: any string. One that no account can have (a NUL,
    a lone surrogate) is simply wrong, `invalid_credentials` like any other (the service checks)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitedCharacters)]


class CredentialsSerializer(serializers.Serializer):
    username = CredentialField(max_length=MAX_LENGTH)
    password = CredentialField(max_length=PASSWORD_MAX_LENGTH)


class PasswordChangeSerializer(serializers.Serializer):
    old_password = CredentialField(max_length=PASSWORD_MAX_LENGTH, help_text="The current password.")
    new_password = StrictCharField(
        min_length=8,
        max_length=PASSWORD_MAX_LENGTH,
        help_text="At least 8 characters, hard to guess (zxcvbn), not like the username, not only digits.",
    )


class PartnerPlayerSerializer(serializers.Serializer):
    currency = StrictChoiceField(
        choices=sorted(CURRENCIES), help_text="ISO 4217 code of the new player's wallet (a currency with cents)."
    )


class TransferCreateSerializer(serializers.Serializer):
    direction = EnumField(TransferDirection)
    amount = MinorUnitsField()
    reference = PrintableTextField(min_length=1, max_length=128, help_text="The partner's reference (printable).")


class TransferFilterSerializer(serializers.Serializer):
    date = serializers.DateField(required=False, help_text="Only the transfers of this UTC day (YYYY-MM-DD).")
    reference = serializers.CharField(
        required=False, max_length=128, help_text="Only the transfer with this reference."
    )
