"""The exact odds: the figures of RULES.md section 3 to the last digit, and the command line."""

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from casino.odds import casino_war_odds, decision_values
from casino.odds.validation import validate


def test_the_rule_book_figures_come_out_to_the_last_digit():
    plain = casino_war_odds(6, 10, False)
    bonus = casino_war_odds(6, 10, True)
    assert f"{float(plain.house_edge_war) * 100:.4f}" == "2.8771"
    assert f"{float(bonus.house_edge_war) * 100:.4f}" == "2.3301"
    assert f"{float(plain.house_edge_surrender) * 100:.4f}" == "3.6977"
    assert f"{float(plain.house_edge_tie_bet) * 100:.4f}" == "18.6495"


def test_exact_fractions_for_six_decks():
    odds = casino_war_odds(6, 10, False)
    assert odds.p_tie == Fraction(23, 311)
    assert odds.house_edge_surrender == Fraction(23, 622)
    assert odds.house_edge_tie_bet == Fraction(58, 311)
    assert odds.p_win == odds.p_lose and odds.p_win + odds.p_lose + odds.p_tie == 1
    assert odds.war.win == odds.war.lose and odds.rtp_war == 1 - odds.house_edge_war


@pytest.mark.parametrize("decks", range(1, 9))
def test_probabilities_add_up_for_every_shoe(decks):
    odds = casino_war_odds(decks, 11, True)
    assert odds.war.win + odds.war.tie + odds.war.lose == 1
    assert 0 < odds.house_edge_war < odds.house_edge_surrender < odds.house_edge_tie_bet
    assert odds.variance_war > 0 and 0 < odds.element_of_risk_war < odds.house_edge_war


def test_more_decks_mean_more_ties_and_a_higher_war_edge():
    edges = [casino_war_odds(d).house_edge_war for d in range(1, 9)]
    assert edges == sorted(edges)


def test_decision_values_for_a_shoe_composition():
    # A shoe of only higher cards for the player is impossible; take a two-rank shoe instead.
    values = decision_values({2: 2, 14: 2})
    # pairs: 12 ordered; ties 2+2=4; player higher 4; lower 4 -> war = 4/12 + 4/12 - 2*4/12 = 0
    assert values == {"war": Fraction(0), "surrender": Fraction(-1, 2)}
    assert decision_values({2: 2, 14: 2}, tie_after_tie_bonus=True)["war"] == Fraction(1, 3)


def run_cli(payload, *args):
    proc = subprocess.run(
        [sys.executable, "-m", "casino.odds", "house-edge", *args],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.returncode, json.loads(proc.stdout)


def test_house_edge_command_line_shape():
    code, out = run_cli({"decks": 6, "tie_after_tie_bonus": False, "tie_pays": 10})
    assert code == 0 and set(out) == {"war", "surrender", "tie_bet"}
    assert abs(out["war"] - 0.0287713376) < 1e-9 and abs(out["surrender"] - 0.0369774920) < 1e-9
    assert abs(out["tie_bet"] - 0.1864951768) < 1e-9


@pytest.mark.parametrize("payload", [{"decks": 9}, {"decks": "6"}, {"tie_pays": 0}, {"tie_after_tie_bonus": "yes"}])
def test_house_edge_refuses_bad_input(payload):
    code, out = run_cli(payload)
    assert code == 1 and set(out) == {"error"}


def test_a_fixed_seed_sample_of_rounds_lands_inside_the_intervals():
    # 30,000 rounds through the engine, fixed seed: deterministic, and each bet's measured return
    # must cover the exact figure (the long run is `python -m casino.odds validate`).
    checks = validate(rounds=30_000, seed="ci-statistical-test")
    assert {c.name for c in checks} == {"war", "surrender", "tie_bet"}
    for check in checks:
        assert check.within, check.as_json()
