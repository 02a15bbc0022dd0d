"""The first seven battles of the example game in the Spanish source text (seeds/001_*.txt),
replayed from a deal built from it. Face-down cards the text does not name are filled in from
the rest of the deck; they decide nothing in these battles."""

from casino.engine.cards import deck
from casino.engine.war import play_war

# Tú (seat 0) and Ada (seat 1); None marks a face-down card the text leaves unnamed.
YOU = [
    "KS",
    "4D",
    "7C",
    "9D",
    "2S",
    "6H",
    "QD",
    "AH",
    None,
    None,
    None,
    "6C",
    None,
    None,
    None,
    "8H",
    "4C",
    "7S",
    None,
    None,
    None,
    "AS",
    "5C",
    None,
    None,
    None,
]
ADA = [
    "9H",
    "JC",
    "7H",
    "3D",
    "KC",
    "TH",
    "TS",
    "AC",
    None,
    None,
    None,
    "6S",
    None,
    None,
    None,
    "JD",
    "8C",
    "7D",
    None,
    None,
    None,
    "2D",
    "5H",
    None,
    None,
    None,
]


def build_deal():
    named = {c for c in YOU + ADA if c}
    filler = iter(c.code for c in deck(52) if c.code not in named)
    return [[c or next(filler) for c in stock] for stock in (YOU, ADA)]


def test_first_seven_battles_follow_the_text():
    game = play_war("standard", {"max_battles": 50, "on_limit": "count"}, deal=build_deal())
    battles = [b.as_json() for b in game.battles[:7]]
    assert [b["up"] for b in battles] == [
        ["KS", "9H"],
        ["4D", "JC"],
        ["7C", "7H"],
        ["AH", "AC"],
        ["4C", "8C"],
        ["7S", "7D"],
        ["5C", "5H"],
    ]
    assert [b["winner"] for b in battles] == [0, 1, 0, 1, 1, 0, 0]
    assert [b["war_steps"] for b in battles] == [0, 0, 1, 2, 0, 1, 1]
    # 27-25, then 26 each; 31-21 after the first war; 22-30 after the double war (18 cards);
    # 21-31; 26 each; 31-21 when your K♠ (won in battle 1) beats Ada's 4♦ (won in battle 2).
    assert [b["counts"] for b in battles] == [
        [27, 25],
        [26, 26],
        [31, 21],
        [22, 30],
        [21, 31],
        [26, 26],
        [31, 21],
    ]


def test_battle_seven_turns_up_the_first_won_cards():
    game = play_war("standard", {}, deal=build_deal(), record_events=True)
    face_ups = [e for e in game.events if e.battle == 7 and e.kind.value == "face_up"]
    assert [deck(52)[0].__class__.__name__] and [f.cards for f in face_ups] == [
        (next(c.id for c in deck(52) if c.code == "KS"),),
        (next(c.id for c in deck(52) if c.code == "4D"),),
    ]


def test_the_game_is_played_to_fifty_battles_and_counted():
    game = play_war("standard", {"max_battles": 50, "on_limit": "count"}, deal=build_deal())
    assert game.result.battles <= 50
    if game.result.battles == 50 and game.result.reason.value == "limit_count":
        counts = game.result.counts
        assert game.result.winner == (None if counts[0] == counts[1] else counts.index(max(counts)))
