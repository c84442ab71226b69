"""`expert-gui experiment` (placeholder until its issue lands)."""


def register(sub):
    p = sub.add_parser("experiment", help="(not available yet)")
    p.set_defaults(func=lambda args: print("expert-gui experiment: not available yet") or 1)
