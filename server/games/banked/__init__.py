"""Banked games: the player against the house."""
