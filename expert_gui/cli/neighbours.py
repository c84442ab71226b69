"""`expert-gui neighbours` (placeholder until its issue lands)."""


def register(sub):
    p = sub.add_parser("neighbours", help="(not available yet)")
    p.set_defaults(func=lambda args: print("expert-gui neighbours: not available yet") or 1)
