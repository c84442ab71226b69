"""The training panel: its settings form (form.py), live loss plot (plot.py) and the panel
that runs, pauses, stops and lists trainings (panel.py)."""
