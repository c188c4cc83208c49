"""The window's one road to the store: every read and write goes through ``DatabaseExecutor``."""

from cauterule_gui.db.executor import KINDS, DatabaseExecutor, in_write_op

__all__ = ["KINDS", "DatabaseExecutor", "in_write_op"]
