"""Writes of the casino app: seeds, rounds, settlement and partner webhooks."""
