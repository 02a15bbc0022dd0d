from django.conf import settings

from ledger.selectors import player_wallet_summary


def player(request) -> dict:
    """The signed-in player and their wallet for the header of every page."""
    user = getattr(request, "user", None)
    current = getattr(user, "player", None) if user is not None and user.is_authenticated else None
    return {
        "current_player": current,
        "header_wallet": player_wallet_summary(player=current) if current is not None else None,
        "play_money": settings.PLAY_MONEY,
    }
