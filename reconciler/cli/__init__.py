"""Entry layer: the `reconciler` command line, one module per subcommand.

May import every layer below it; nothing imports the CLI.
"""
