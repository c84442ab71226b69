"""Issue 43's hostile inputs: names, dates, paths, marks and the cache (items 7, 8, 11, 12, 13).

Run by hostile_inputs.py: CASES as its own (item, what, make, command); HOOKS maps a flag of
the command to a function that installs a failure in the process before the CLI runs.
"""

CASES: dict = {}
HOOKS: dict = {}
