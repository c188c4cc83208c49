"""Developer tools that are not part of the shipped product (never imported by core/ or the GUI)."""
