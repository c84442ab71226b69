"""Issue 43's hostile inputs: model folders, saves, git and two instances (items 1-4, 10, 13).

Run by hostile_inputs.py: CASES as its own (item, what, make, command); HOOKS maps a flag of
the command to a function that installs a failure in the process before the CLI runs.
"""

CASES: dict = {}
HOOKS: dict = {}
