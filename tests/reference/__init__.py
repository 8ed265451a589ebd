"""Literal ports of reference codes, written from reading them, used as test oracles only."""
