"""Each table's inputs: its scenario sections declared (types, limits, words), the rules that join several inputs,
the defaults that follow other inputs, and the external data it reads (Goodput's benchmark logs). One module per
table of the registry; `planner.tables.InputsModule` says what each holds. The Scenario is assembled from them."""
