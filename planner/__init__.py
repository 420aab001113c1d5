"""planner: LLM training and serving cost planning workbooks."""

__version__ = "0.4.0"
