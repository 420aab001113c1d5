"""The plan (docs/method.md §9 and §13): one computation below the tables that show it. What it reads, as plain
values (`inputs`); the prices by tier, the commitments and owning (`prices`); the timeline, its month rows and the
three paths month by month (`months`). The Cost table prices it and reconciles it (planner/engine/cost.py); the
Budget's average months, the GPUs side by side and the Sensitivity's tornado read the same pieces."""
