"""The command line of RULES.md section 7, run as a real subprocess."""

import json
import subprocess
import sys

import pytest

SEED = "ab" * 32


def run(job, payload, *args):
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run(
        [sys.executable, "-m", "casino.engine", job, *args],
        input=raw,
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.returncode, json.loads(proc.stdout)


def test_casino_war_example_of_the_rule_book():
    code, out = run(
        "casino-war",
        {
            "rules": {},
            "shoe": ["7H", "7S", "2C", "3C", "4C", "QD", "9C"],
            "main": 1000,
            "tie": 100,
            "decision": "war",
        },
    )
    assert code == 0
    assert out == {
        "player": "7H",
        "dealer": "7S",
        "war": {"player": "QD", "dealer": "9C"},
        "net": {"main": 0, "raise": 1000, "tie": 1000, "bonus": 0},
        "total": 2000,
    }


def test_casino_war_without_a_tie_has_no_war_and_ignores_a_decision():
    code, out = run("casino-war", {"shoe": ["KH", "7S"], "main": 500, "decision": "surrender"})
    assert code == 0 and out["war"] is None and out["total"] == 500


def test_war_output_shape():
    code, out = run("war", {"preset": "standard", "deal": [["KS", "QC"], ["9H", "3C"]]})
    assert code == 0
    assert out["result"] == {"winner": 0, "reason": "all_cards", "battles": 2, "counts": [4, 0]}
    assert out["battles"][0] == {"n": 1, "up": ["KS", "9H"], "war_steps": 0, "winner": 0, "counts": [3, 1]}


def test_war_with_events():
    code, out = run("war", {"preset": "classic", "seed": SEED}, "--events")
    assert code == 0 and out["events"][0]["type"] == "battle"


def test_shuffle_job_and_whole_shoe():
    code, out = run("shuffle", {"server_seed": SEED, "client_seed": "x", "nonce": 7, "decks": 6, "cards": 10})
    assert code == 0 and out == {"cards": ["JD", "2S", "5C", "8H", "4C", "2H", "3D", "4C", "AD", "7D"]}
    code, out = run("shuffle", {"server_seed": SEED, "decks": 1})
    assert code == 0 and len(out["cards"]) == 52


def test_verify_job_checks_the_published_hash():
    import hashlib

    published = hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    code, out = run("verify", {"server_seed": SEED, "server_seed_hash": published, "client_seed": "x", "nonce": 7})
    assert code == 0 and out["hash_matches"] is True and (out["player"], out["dealer"]) == ("JD", "2S")
    assert out["war"] == {"player": "2H", "dealer": "3D"}


@pytest.mark.parametrize(
    ("job", "payload"),
    [
        ("war", {"preset": "peace", "seed": SEED, "options": {"down": 1}}),
        ("war", {"preset": "standard"}),
        ("war", {"preset": "pyanitsa", "deal": [["6S"], ["AS"]]}),
        ("war", "not json"),
        ("casino-war", {"shoe": ["7H"], "main": 10}),
        ("casino-war", {"shoe": ["7H", "7S"], "main": 0}),
        ("casino-war", {"shoe": ["7H", "7S"], "main": 10, "rules": {"burn": 9}}),
        ("shuffle", {"server_seed": "zz", "decks": 6}),
        ("shuffle", {"server_seed": SEED, "decks": 9}),
    ],
)
def test_refused_input_prints_an_error_and_exits_1(job, payload):
    code, out = run(job, payload)
    assert code == 1 and set(out) == {"error"} and out["error"]
