"""The Sensitivity table has no inputs of its own (docs/method.md §9): its grids and tornado move the inputs of
Hours, Crossover and Serving around the scenario's values. The registry's defaults stand for its members (no
sections, rules or external data: planner.tables.DEFAULTS)."""
