"""State store: SQLAlchemy models, migrations, sharded leases with fencing, the work queue, the notes outbox.

May import SQLAlchemy and Alembic; never the engine, the templates or any provider.
"""
