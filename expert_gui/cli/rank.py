"""`expert-gui rank` (placeholder until its issue lands)."""


def register(sub):
    p = sub.add_parser("rank", help="(not available yet)")
    p.set_defaults(func=lambda args: print("expert-gui rank: not available yet") or 1)
