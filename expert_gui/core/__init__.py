"""The engine: collections, text, model, training, ranking, baselines, evaluation, storage.

Nothing in this package imports Qt (an import-linter contract in CI enforces it), so the CLI,
the GUI's workers and the tests all call the same code.
"""
