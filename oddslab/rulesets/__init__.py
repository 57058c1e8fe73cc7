"""Rulesets: each maps a game's rules onto kernels (profiles → arrays → kernels)."""
