"""CauterRule Workbench core: pure Python domain logic. Never imports Qt."""
