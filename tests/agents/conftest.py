"""The `omega` fixture of the agent tests (see `support`)."""

from tests.agents.support import omega

__all__ = ["omega"]
