"""The unit's application side: configuration, the real-time runtime, scenarios, simulate, the trace, the saved game."""
