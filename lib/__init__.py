"""Roundtrip's library: the trace model, its formats and the pure functions over it."""
