"""OMEN v0.7 conformance: the spec's examples, templates and one-mutation negative episodes."""
