"""The engine, in stages that each use only the stages below them (an import-linter `layers`
contract in pyproject.toml keeps it so): data -> model -> store -> train -> rankers -> explore ->
evaluation, over `errors`, `paths` and `schema`, which every stage may use.

Nothing in this package imports Qt (a second contract), so the CLI, the GUI's workers and the
tests all call the same code.
"""
