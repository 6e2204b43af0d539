"""Benchmarks: scripts that print figures (run with `python -m tests.bench.<module>`); never timing asserts."""
