"""`expert-gui query` (placeholder until its issue lands)."""


def register(sub):
    p = sub.add_parser("query", help="(not available yet)")
    p.set_defaults(func=lambda args: print("expert-gui query: not available yet") or 1)
