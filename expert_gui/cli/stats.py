"""`expert-gui stats COLLECTION [--json]`: the paper's Table 1 for a collection (placeholder)."""


def register(sub):
    p = sub.add_parser("stats", help="(not available yet)")
    p.set_defaults(func=lambda args: print("expert-gui stats: not available yet") or 1)
