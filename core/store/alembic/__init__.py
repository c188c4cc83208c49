"""The store's Alembic environment (``env.py``) and revisions (``versions/``); run by ``core.store.schema``."""
