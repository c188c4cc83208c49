"""matplotlib figures inside ``FigureCanvasQTAgg`` (never pyplot)."""
