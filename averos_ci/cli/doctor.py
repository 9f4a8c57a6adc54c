"""``averos-ci doctor`` (registered below)."""
