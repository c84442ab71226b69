"""The training panel: its settings form (form.py), live loss plot (plot.py), saved-models list
(model_list.py, each model's line in saved_models.py) and the panel that runs, pauses and stops
trainings (panel.py; what a run is doing: run_state.py; its end: run_end.py)."""
