"""CauterRule Workbench desktop application (PySide6)."""
