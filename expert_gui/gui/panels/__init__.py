"""One module per panel of the main window; each reads and sets the shared `AppState`."""
