"""The War family: the common model, its options, and every preset of the rule book."""

from casino.engine.war.game import play_dealt, play_war, seeded_deal
from casino.engine.war.records import BattleRecord, Event, EventKind, Reason, WarGame, WarResult
from casino.engine.war.rules import PRESETS, WarRules, build_rules
from casino.engine.war.steal import DefaultBot, ScriptedAgent, StealAgent, StealView, TopView
from casino.engine.war.tod_und_leben import MatchResult, play_tod_und_leben_match

__all__ = [
    "PRESETS",
    "BattleRecord",
    "DefaultBot",
    "Event",
    "EventKind",
    "MatchResult",
    "Reason",
    "ScriptedAgent",
    "StealAgent",
    "StealView",
    "TopView",
    "WarGame",
    "WarResult",
    "WarRules",
    "build_rules",
    "play_dealt",
    "play_tod_und_leben_match",
    "play_war",
    "seeded_deal",
]
