"""`expert-gui export-embeddings`: word and person embeddings for the TensorBoard Projector."""

from __future__ import annotations

from expert_gui.cli import COMMANDS
from expert_gui.core.explore.projector import WHAT


def register(sub):
    p = sub.add_parser("export-embeddings", help=COMMANDS["export-embeddings"],
                       description="Write OUT/words and OUT/people, each a vectors.tsv (one "
                                   "embedding a line) and a metadata.tsv (a header, then one "
                                   "line per embedding), the TensorBoard Embedding Projector's "
                                   "format. People's metadata: id, name, documents (when the "
                                   "collection is found) and the group of the people map.")
    p.add_argument("model_dir", metavar="MODEL_DIR", help="a trained model folder")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write")
    p.add_argument("--what", nargs="+", choices=WHAT, default=list(WHAT),
                   help="what to export (default: words and people)")
    p.add_argument("--collection", metavar="PATH",
                   help="the model's collection, for people's document counts (default: the "
                        "one it was trained on)")
    p.set_defaults(func=run)


def run(args) -> int:
    from expert_gui.cli.profile import _collection
    from expert_gui.core.explore.projector import check_export_folder, export_embeddings
    from expert_gui.core.store.storage import load_model

    check_export_folder(args.out, args.what)  # before the work, as train --out
    model = load_model(args.model_dir)
    collection = _collection(model, args.collection) if "people" in args.what else None
    for path in export_embeddings(model, args.out, what=args.what, collection=collection):
        print(path)
    return 0
