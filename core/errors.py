"""One hierarchy of service errors, each with a machine code and an HTTP status.

Services raise these; the DRF exception handler in `core.problems` renders them as RFC 9457
problem details. The codes are part of the public contract and never change.
"""

from __future__ import annotations


class ServiceError(Exception):
    code: str = "error"
    status: int = 400
    title: str = "The request could not be served."

    def __init__(self, detail: str | None = None, **extra: object) -> None:
        self.detail = detail or self.title
        self.extra = extra
        super().__init__(self.detail)


class InvalidInput(ServiceError):
    code = "invalid_input"
    status = 400
    title = "The request is malformed or invalid."


class InvalidAmount(InvalidInput):
    code = "invalid_amount"
    title = "The amount must be a positive integer number of minor units."


class NotFound(ServiceError):
    code = "not_found"
    status = 404
    title = "Not found."


class StateConflict(ServiceError):
    code = "conflict"
    status = 409
    title = "The object's state does not allow this."


class BusinessRuleRefused(ServiceError):
    code = "refused"
    status = 422
    title = "A business rule refuses this request."


class InsufficientFunds(BusinessRuleRefused):
    code = "insufficient_funds"
    title = "The wallet does not hold enough money for this."


class IdempotencyConflict(BusinessRuleRefused):
    code = "idempotency_conflict"
    title = "This idempotency key was already used with different content."


class CurrencyMismatch(InvalidInput):
    code = "currency_mismatch"
    title = "The currencies of this operation do not match."
