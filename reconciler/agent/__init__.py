"""The agent a VM runs: poll the daemon's agent API, run each new deployment once, signal its result.

Standard library only, so it runs on any image with Python 3; never imports the engine, state or
providers (what it speaks is the agent API's HTTP, nothing else).
"""
