"""GUI for the rest of the loop (gate, injection, taint, cross-session, writing candidates).

Kept apart from the panels other people edit; ``install.install_loop(window)`` wires it into
the main window with a few hooks."""
