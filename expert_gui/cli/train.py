"""`expert-gui train` (placeholder until its issue lands)."""


def register(sub):
    p = sub.add_parser("train", help="(not available yet)")
    p.set_defaults(func=lambda args: print("expert-gui train: not available yet") or 1)
