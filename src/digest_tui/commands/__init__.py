"""Subcommands of the `digest-tui` CLI, one module per area; each has `register(subparsers)`."""
