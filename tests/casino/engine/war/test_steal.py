"""Steal War: steals, swaps, protection, the default bot and people as agents."""

import pytest

from casino.engine.cards import card
from casino.engine.errors import DecisionRequired
from casino.engine.war import DefaultBot, ScriptedAgent, StealView, TopView, play_war
from casino.engine.war.records import EventKind

SEED = "77" * 32


def events_of(game, kind):
    return [e.as_json() for e in game.events if e.kind is kind]


def test_won_trick_goes_on_the_capture_pile_with_the_lowest_card_on_top():
    game = play_war("steal", {}, deal=[["KS", "2C", "3C"], ["9H", "4D", "5D"]], seed=SEED, record_events=True)
    take = events_of(game, EventKind.TAKE)[0]
    assert take == {"type": "take", "battle": 1, "seat": 0, "cards": ["KS", "9H"]}


def test_a_matching_card_steals_the_pile_and_plays_the_next_card():
    # Battle 1: seat 0 wins K+9 and lays the 9 on top. Battle 2: seat 1 looks at a 9 and steals.
    deal = [["KS", "2C", "AC"], ["9H", "9D", "4D", "5D"]]
    game = play_war("steal", {}, deal=deal, seed=SEED, record_events=True)
    steal = events_of(game, EventKind.STEAL)[0]
    assert steal == {"type": "steal", "battle": 2, "seat": 1, "cards": ["9D"], "seats": [0], "counts": [2]}
    assert game.battles[1].as_json()["up"] == ["2C", "4D"]  # up holds fighting cards, not stealing ones
    assert game.battles[1].counts == (1, 6)  # seat 1: its new pile (K, 9, 9D) plus 2C and 4D won


def test_a_played_card_matching_its_own_pile_protects_it():
    deal = [["KS", "9C", "AC", "3C"], ["9H", "9D", "4D", "5D"]]
    game = play_war("steal", {}, deal=deal, seed=SEED, record_events=True)
    # Battle 2: seat 0 plays 9C on its own 9 (protected); seat 1's steal with 9D is void.
    assert events_of(game, EventKind.PROTECT)[0]["seat"] == 0
    void = events_of(game, EventKind.VOID_STEAL)[0]
    assert void["seat"] == 1 and void["cards"] == ["9D"]
    assert game.battles[1].as_json()["up"] == ["9C", "9D"]


class AlwaysStealFrom:
    def __init__(self, target):
        self.target = target

    def choose_steal(self, view: StealView):
        return self.target if self.target in view.targets else None

    def choose_top(self, view: TopView):
        return 0


def test_two_seats_stealing_each_other_swap_piles():
    from casino.engine.fairness import HmacStream
    from casino.engine.war.rules import build_rules
    from casino.engine.war.steal import _StealGame

    rules = build_rules("steal", seats=2)
    game = _StealGame(
        rules,
        [[card("5S").id, card("2C").id], [card("7H").id, card("3D").id]],
        HmacStream(SEED),
        [AlwaysStealFrom(1), AlwaysStealFrom(0)],
        True,
    )
    game.pile = [[card("9C").id, card("7C").id], [card("KD").id, card("5D").id]]
    game.n = 1
    trick, face = [[], []], [None, None]
    game._fighting_cards([0, 1], trick, face, in_war=False)
    codes = [
        [c.code for c in map(lambda i: __import__("casino.engine.cards", fromlist=["ALL_CARDS"]).ALL_CARDS[i], p)]
        for p in game.pile
    ]
    assert codes == [["KD", "5D", "5S"], ["9C", "7C", "7H"]]
    assert face == [card("2C").id, card("3D").id]


def test_two_thieves_aiming_at_one_pile_the_lower_seat_gets_it():
    from casino.engine.cards import ALL_CARDS
    from casino.engine.fairness import HmacStream
    from casino.engine.war.rules import build_rules
    from casino.engine.war.steal import _StealGame

    rules = build_rules("steal", seats=3)
    ids = lambda codes: [card(c).id for c in codes]  # noqa: E731
    game = _StealGame(rules, [ids(["4S", "2C"]), ids(["4H", "3C"]), ids(["8D", "6D"])], HmacStream(SEED), None, True)
    game.pile = [[], [], ids(["KD", "4D"])]
    game.n = 1
    trick, face = [[], [], []], [None, None, None]
    game._fighting_cards([0, 1, 2], trick, face, in_war=False)
    assert [ALL_CARDS[c].code for c in game.pile[0]] == ["KD", "4D", "4S"]
    assert face[1] == card("4H").id  # the void steal's card is played
    assert face[0] == card("2C").id


def test_a_person_decides_through_a_scripted_agent_and_replays():
    deal = [["KS", "2C", "AC"], ["9H", "9D", "4D", "5D"]]
    person = ScriptedAgent()
    with pytest.raises(DecisionRequired):
        play_war("steal", {}, deal=deal, seed=SEED, agents=[DefaultBot(), person])
    assert isinstance(person.pending, StealView) and person.pending.targets == (0,)
    person = ScriptedAgent(steals=[None], tops=[1])
    declined = play_war("steal", {"max_battles": 2}, deal=deal, seed=SEED, agents=[DefaultBot(), person])
    assert declined.battles[1].as_json()["up"] == ["2C", "9D"]
    assert declined.battles[1].winner == 1 and person.pending is None


def test_steal_games_end_and_conserve_the_54_cards():
    for nonce in range(10):
        game = play_war("steal", {"seats": 3}, seed=SEED, nonce=nonce)
        assert game.result.battles == len(game.battles)
        for battle in game.battles:
            if battle.winner is not None:
                assert sum(battle.counts) == 54
