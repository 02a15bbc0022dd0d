import json
import xml.etree.ElementTree as ElementTree

from casino.odds.war_stats import length_histogram_svg, simulate


def test_statistics_are_reproducible_and_complete():
    first = simulate("one_down", {"max_battles": 300}, games=40, seed="s").as_json()
    again = simulate("one_down", {"max_battles": 300}, games=40, seed="s").as_json()
    assert first == again
    assert first["games"] == 40 and set(first["win"]) == {"0", "1"}
    total = sum(first["win"][s]["value"] for s in first["win"]) + first["draw"]["value"]
    assert abs(total - 1) < 1e-9
    for key in ("draw", "stopped_by_limit"):
        low, high = first[key]["ci95"]
        assert 0 <= low <= first[key]["value"] <= high <= 1
    battles = first["battles"]
    assert battles["quantiles"]["0.1"] <= battles["median"] <= battles["quantiles"]["0.9"] <= battles["max"] <= 300
    assert first["wars_per_game"]["value"] >= first["double_wars_per_game"]["value"] >= 0
    json.dumps(first)


def test_a_different_seed_gives_different_games():
    a = simulate("tod_und_leben", games=30, seed="a").as_json()
    b = simulate("tod_und_leben", games=30, seed="b").as_json()
    assert a != b


def test_the_chart_is_valid_svg():
    svg = length_histogram_svg(simulate("peace", {"max_battles": 200}, games=20, seed="c"))
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg") and len(root.findall("{http://www.w3.org/2000/svg}rect")) > 1
