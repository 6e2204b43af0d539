"""Conformance suites: expected values from the published specifications, never from the code."""
