"""Entry layer: the long-running daemon (scheduling, signals, HTTP endpoints, sd_notify).

May import every layer below it; nothing but the CLI imports the daemon.
"""
