"""Issue 43's hostile inputs: records: streaming, the record cap, RefWorks, byte-order marks (items 5, 6, 8, 9, 13).

Run by hostile_inputs.py: CASES as its own (item, what, make, command); HOOKS maps a flag of
the command to a function that installs a failure in the process before the CLI runs.
"""

CASES: dict = {}
HOOKS: dict = {}
