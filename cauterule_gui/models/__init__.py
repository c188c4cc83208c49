"""One QAbstractTableModel per entity; large sets are fetched lazily from the repositories."""
