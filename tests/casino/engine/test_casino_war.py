import pytest

from casino.engine import (
    Action,
    BetOffTableError,
    CasinoWarRules,
    FreshShoe,
    HmacStream,
    IllegalActionError,
    InvalidRulesError,
    Outcome,
    PersistentShoe,
    Phase,
    StackedShoe,
    TableLimits,
    card,
    decide,
    place_bets,
    play_round,
    shoe_cards,
)
from casino.engine.casino_war import half_for_player

SEED = "cd" * 32


def stacked(*codes):
    return StackedShoe([card(c) for c in codes])


def test_player_higher_wins_even_money_and_tie_bet_loses():
    state = play_round(rules=CasinoWarRules(), main=1000, tie=100, cards=stacked("KH", "9S"))
    assert state.outcome is Outcome.WIN
    assert state.nets.as_dict() == {"main": 1000, "raise": 0, "tie": -100, "bonus": 0}
    assert state.payout == 2000  # 1100 staked back as 1000 stake + 1000 win; tie stake lost


def test_dealer_higher_loses_the_main_bet():
    state = play_round(rules=CasinoWarRules(), main=1000, cards=stacked("2H", "3S"))
    assert state.outcome is Outcome.LOSE and state.nets.total == -1000 and state.payout == 0


def test_tie_waits_for_a_decision_and_the_tie_bet_is_settled_on_the_first_two_cards():
    state = place_bets(rules=CasinoWarRules(tie_pays=11), main=1000, tie=100, cards=stacked("7H", "7S"))
    assert state.phase is Phase.AWAITING_DECISION
    assert state.nets.tie == 1100 and state.outcome is None


def test_surrender_returns_the_smaller_half_of_an_odd_bet():
    state = place_bets(rules=CasinoWarRules(), main=1001, cards=stacked("7H", "7S"))
    state = decide(state, Action.SURRENDER, stacked())
    assert state.outcome is Outcome.SURRENDER and state.nets.main == -501 and state.payout == 500
    assert half_for_player(1001) == 500 and half_for_player(1000) == 500  # the one rounding rule


def test_war_win_pays_the_raise_and_pushes_the_main_bet():
    state = play_round(
        rules=CasinoWarRules(),
        main=10,
        cards=stacked("7H", "7S", "2C", "3C", "4C", "QD", "9C"),
        decision="war",
    )
    assert state.outcome is Outcome.WAR_WIN and state.nets.total == 10
    assert [c.code for c in state.burned] == ["2C", "3C", "4C"]
    assert state.raise_bet == 10 and state.staked == 20 and state.payout == 30


def test_war_lose_loses_both_bets():
    state = play_round(rules=CasinoWarRules(burn=0), main=10, cards=stacked("7H", "7S", "2D", "9C"), decision="war")
    assert state.outcome is Outcome.WAR_LOSE and state.nets.total == -20 and state.payout == 0


@pytest.mark.parametrize(("bonus", "expected"), [(False, 10), (True, 20)])
def test_tie_after_tie_bonus(bonus, expected):
    rules = CasinoWarRules(burn=0, tie_after_tie_bonus=bonus)
    state = play_round(rules=rules, main=10, cards=stacked("7H", "7S", "9D", "9C"), decision="war")
    assert state.outcome is Outcome.WAR_TIE and state.nets.total == expected


def test_missing_decision_takes_the_house_rule():
    state = play_round(rules=CasinoWarRules(burn=0), main=10, cards=stacked("7H", "7S", "9D", "2C"))
    assert state.decision is Action.WAR


def test_a_decision_when_none_is_due_is_illegal():
    state = place_bets(rules=CasinoWarRules(), main=10, cards=stacked("KH", "2S"))
    with pytest.raises(IllegalActionError):
        decide(state, "war", stacked("2C"))


def test_unknown_decision_is_illegal():
    state = place_bets(rules=CasinoWarRules(), main=10, cards=stacked("7H", "7S"))
    with pytest.raises(IllegalActionError):
        decide(state, "double", stacked())


@pytest.mark.parametrize(("main", "tie"), [(5, 0), (1005, 0), (20_000, 0), (100, 15), (100, 600), (100, -5)])
def test_bets_off_the_table_are_refused(main, tie):
    limits = TableLimits(min_bet=100, max_bet=10_000, bet_step=10, max_tie_bet=500)
    with pytest.raises(BetOffTableError):
        place_bets(rules=CasinoWarRules(), main=main, tie=tie, cards=stacked("KH", "2S"), limits=limits)


@pytest.mark.parametrize(
    "table_settings",
    [{"decks": 0}, {"decks": 9}, {"burn": 6}, {"tie_pays": 31}, {"shuffle": "weekly"}, {"penetration": 95}],
)
def test_table_settings_out_of_range_are_refused(table_settings):
    with pytest.raises(InvalidRulesError):
        CasinoWarRules(**table_settings)


def test_fresh_shoe_deals_positions_0_1_then_war_cards_at_5_and_6_with_burn_3():
    shoe = shoe_cards(server_seed=SEED, client_seed="c", nonce=0, decks=6, cards=7)
    state = play_round(rules=CasinoWarRules(), main=10, cards=FreshShoe(6, HmacStream(SEED, "c", 0)), decision="war")
    assert (state.player_card, state.dealer_card) == (shoe[0], shoe[1])
    if state.player_war_card is not None:
        assert (state.player_war_card, state.dealer_war_card) == (shoe[5], shoe[6])


def test_persistent_shoe_reshuffles_at_the_cut_card():
    persistent = PersistentShoe.shuffled(decks=1, penetration=50, stream=HmacStream(SEED))
    assert persistent.cut == 26 and not persistent.needs_shuffle
    source = persistent.source()
    play_round(rules=CasinoWarRules(decks=1), main=10, cards=source)
    after = persistent.advanced(26)
    assert after.needs_shuffle and len(after.remaining) == 26
