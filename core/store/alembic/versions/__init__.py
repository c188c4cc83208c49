"""Alembic revisions of the store schema, oldest first; a package so a wheel ships them."""
