from casino.engine.war import play_war


def play(preset, deal, options=None, **kwargs):
    return play_war(preset, options or {}, deal=deal, **kwargs)


def summary(game, n=None):
    """The section 7 records of the first `n` battles, as plain data."""
    return [b.as_json() for b in game.battles[:n]]
