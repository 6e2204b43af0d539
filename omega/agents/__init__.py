"""OMEGA-57 orchestration monitor: roster, messages, session, confidence, failures, termination, planner."""
