"""The Qt face of the app: windows, panels, plots, and the workers that run core code off the GUI thread."""
