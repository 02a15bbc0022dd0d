"""One hierarchy of service errors, each with a machine code and an HTTP status.

Services raise these; the DRF exception handler in `core.problems` renders them as RFC 9457
problem details. The codes are part of the public contract and never change.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy


class ServiceError(Exception):
    code: str = "error"
    status: int = 400
    title: str = gettext_lazy("The request could not be served.")
    retry_after_s: int | None = None  # sent as Retry-After: when trying again makes sense

    def __init__(self, detail: str | None = None, **extra: object) -> None:
        self.detail = detail or self.title
        self.extra = extra
        super().__init__(self.detail)


class InvalidInput(ServiceError):
    code = "invalid_input"
    status = 400
    title = gettext_lazy("The request is malformed or invalid.")


class InvalidAmount(InvalidInput):
    code = "invalid_amount"
    title = gettext_lazy("The amount must be a positive integer number of minor units.")


class NotFound(ServiceError):
    code = "not_found"
    status = 404
    title = gettext_lazy("Not found.")


class StateConflict(ServiceError):
    code = "conflict"
    status = 409
    title = gettext_lazy("The object's state does not allow this.")


class BusinessRuleRefused(ServiceError):
    code = "refused"
    status = 422
    title = gettext_lazy("A business rule refuses this request.")


class InsufficientFunds(BusinessRuleRefused):
    code = "insufficient_funds"
    title = gettext_lazy("The wallet does not hold enough money for this.")


class IdempotencyConflict(BusinessRuleRefused):
    code = "idempotency_conflict"
    title = gettext_lazy("This idempotency key was already used with different content.")


class CurrencyMismatch(InvalidInput):
    code = "currency_mismatch"
    title = gettext_lazy("The currencies of this operation do not match.")


# --- The public contract's codes (API.md) ---------------------------------------------------------


class UnknownTable(InvalidInput):
    code = "unknown_table"
    title = gettext_lazy("There is no such table.")


class BetOutOfLimits(BusinessRuleRefused):
    code = "bet_out_of_limits"
    title = gettext_lazy("The bet is outside the table's limits or off its bet step.")


class TableClosed(BusinessRuleRefused):
    code = "table_closed"
    title = gettext_lazy("The table is closed.")


class LimitExceeded(BusinessRuleRefused):
    code = "limit_exceeded"
    title = gettext_lazy("This would exceed one of the player's limits.")


class SelfExcluded(BusinessRuleRefused):
    code = "self_excluded"
    title = gettext_lazy("The player is excluded from play.")


class WalletCurrencyMismatch(BusinessRuleRefused):
    code = "currency_mismatch"
    title = gettext_lazy("The table's currency is not the wallet's currency.")


class PlayerCurrencyMismatch(BusinessRuleRefused):
    code = "currency_mismatch"
    title = gettext_lazy("The player already exists with a wallet in another currency.")


class NotATransferWallet(BusinessRuleRefused):
    code = "not_a_transfer_wallet"
    title = gettext_lazy("The partner keeps this player's money in its own wallet: there is nothing to transfer.")


class WalletUnavailable(ServiceError):
    code = "wallet_unavailable"
    status = 503
    title = gettext_lazy("The partner's wallet gave no usable answer in time; nothing was staked.")
    retry_after_s = 5


class RoundNotAwaitingDecision(StateConflict):
    code = "round_not_awaiting_decision"
    title = gettext_lazy("The round is not waiting for a decision.")


class RoundAwaitingDecision(StateConflict):
    code = "round_awaiting_decision"
    title = gettext_lazy("A round is waiting for a decision.")


class IdempotencyKeyRequired(InvalidInput):
    code = "idempotency_key_required"
    title = gettext_lazy("This request needs an Idempotency-Key header.")


class IdempotencyKeyInvalid(InvalidInput):
    code = "idempotency_key_invalid"
    title = gettext_lazy("The Idempotency-Key must be 1 to 255 printable ASCII characters.")


class DuplicateReference(StateConflict):
    code = "duplicate_reference"
    title = gettext_lazy("This reference was already used for another transfer: no money was moved again.")


class IdempotencyInFlight(StateConflict):
    code = "idempotency_in_flight"
    title = gettext_lazy("A request with this Idempotency-Key is still being processed.")


class SignatureInvalid(ServiceError):
    code = "signature_invalid"
    status = 401
    title = gettext_lazy("The request signature is missing, wrong, stale or replayed.")


class TooManyAttempts(ServiceError):
    code = "throttled"
    status = 429
    title = gettext_lazy("Too many attempts. Wait a few minutes and try again.")


class UsernameTaken(InvalidInput):
    code = "username_taken"
    title = gettext_lazy("This username is taken.")


class InvalidCredentials(InvalidInput):
    code = "invalid_credentials"
    title = gettext_lazy("The username or the password is wrong.")


class NotAPlayer(ServiceError):
    code = "not_a_player"
    status = 403
    title = gettext_lazy("This login has no player wallet.")
