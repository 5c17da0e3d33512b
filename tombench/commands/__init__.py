"""Sub-commands of the `tombench` CLI, one module each (see `tombench.cli._COMMANDS`)."""
