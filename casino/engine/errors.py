"""Narrow, named errors of the engine. None of them is a bug: each is an input refused."""


class EngineError(ValueError):
    """Base of every refusal by the engine; the message says why."""


class InvalidCardError(EngineError):
    """A card code that names no card of the deck in use."""


class InvalidRulesError(EngineError):
    """A table setting or game option out of range, or an impossible combination."""


class InvalidDealError(EngineError):
    """A deal that is not a position of the game (duplicates, foreign cards, wrong sizes)."""


class StreamRequiredError(EngineError):
    """The game draws chance during play but was given no stream."""


class IllegalActionError(EngineError):
    """An action the game's state does not allow now (e.g. a decision when none is due)."""


class BetOffTableError(IllegalActionError):
    """A bet outside the table's limits or off its bet step."""


class ShoeExhaustedError(EngineError):
    """More cards were asked of a shoe than it holds."""


class BattleBudgetExceeded(EngineError):
    """The game had not ended after the battles its caller would pay for (`battle_budget`): a
    service bounds the work of one request so, without changing how any shorter game is played."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        super().__init__(f"the game has not ended after {budget} battles")


class DecisionRequired(EngineError):
    """A scripted agent was asked for a decision it was not given (a person has to decide).

    The game stops there; `view` is what the deciding seat sees and `events` the game's events so
    far, so that a service can show the position and ask the person."""

    view: object = None
    events: tuple = ()
    battles: tuple = ()
