"""`expert-gui stats COLLECTION [--json]`: the paper's Table 1 for a collection, and its load report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from expert_gui.cli import COMMANDS
from expert_gui.core.data.formats import FORMATS
from expert_gui.core.data.formats.presets import PRESETS
from expert_gui.core.data.text import NUMBER_RULES, TextSettings

# Table 1's rows: (field of CollectionStats, label, format).
TABLE1 = (
    ("documents", "Documents", "{:,}"),
    ("average_document_length", "Average document length (tokens)", "{:.2f}"),
    ("people_with_documents", "People with at least one document", "{:,}"),
    ("associations", "Document-person associations", "{:,}"),
    ("documents_with_people", "Documents with at least one person", "{:,}"),
)
# Rows shown as mean ± sd.
SPREADS = (
    ("associations_per_document", "Associations per document (with people)"),
    ("associations_per_person", "Associations per person"),
)
SHOWN_PROBLEMS = 20
NUMBERS_HELP = ("which tokens are folded into the number token: 'numbers' (the default: "
                "integers and hex literals) or 'any-digit' (every token with a digit)")


def add_collection_arguments(p) -> None:
    """COLLECTION and the options that say how to read it."""
    p.add_argument("collection", metavar="COLLECTION",
                   help="a folder (documents.tsv, associations.tsv, ...), TREC file(s), "
                        "a plain-text folder, an export (BibTeX, RIS, Web of Science, "
                        "PubMed .nbib or XML, CSL-JSON, EndNote XML) or a folder of them, a "
                        "table (.csv, .tsv, .xlsx) with text and authors columns, or a git "
                        "repository")
    p.add_argument("--format", choices=list(FORMATS), default=None,
                   help="the collection's format (default: detected from names and content)")
    p.add_argument("--associations", metavar="FILE", default=None,
                   help="document-person links: TSV/CSV (doc_id, person_id) or "
                        "'person_id doc_id [score]' lines (default: associations.* beside it)")
    p.add_argument("--people", metavar="FILE", default=None,
                   help="display names: person_id, name (default: people.* beside it)")
    p.add_argument("--no-cache", action="store_true",
                   help="read the files again instead of the cached copy")
    t = p.add_argument_group("tables (.csv, .tsv, .xlsx with text and authors columns)")
    t.add_argument("--preset", choices=tuple(PRESETS),
                   help="the columns of a known export (detected from the header by default)")
    t.add_argument("--text-columns", metavar="A,B",
                   help="header names of the text columns (default: title, abstract, ...)")
    t.add_argument("--people-column", metavar="NAME",
                   help="header name of the people column, split on ; or | (default: authors)")
    t.add_argument("--id-column", metavar="NAME",
                   help="header name of the document ids (default: id, doc_id, ...; none: the "
                        "file's name and the row's line)")


def open_collection(args, settings: TextSettings = TextSettings()):
    """Load COLLECTION as the options say, with a progress bar on a terminal's stderr."""
    from tqdm import tqdm

    from expert_gui.core.data.loading import load_collection

    bar = tqdm(total=0, unit_scale=True, leave=False, disable=not sys.stderr.isatty(),
               bar_format="{desc} {percentage:3.0f}%|{bar}| {elapsed}")

    def progress(event):
        bar.total, bar.n = event.total, min(event.done, event.total)
        bar.set_description(event.message, refresh=False)
        bar.refresh()

    try:
        return load_collection(args.collection, format=args.format,
                               associations=args.associations, people=args.people,
                               settings=settings, columns=table_columns(args),
                               use_cache=not args.no_cache, progress=progress)
    finally:
        bar.close()


def table_columns(args):
    """The table columns the options name, or None to detect them from the header. An option
    left out keeps what the header suggests, so `--people-column` alone works when the text
    columns are found."""
    from expert_gui.core.data.formats.presets import TableColumns, detect_columns, fit
    from expert_gui.core.data.formats.table import preview
    from expert_gui.core.errors import CollectionError

    if not (args.preset or args.text_columns or args.people_column or args.id_column):
        return None
    header = [h.strip() for h in preview(Path(args.collection), rows=0).header]
    if args.preset:
        return fit(PRESETS[args.preset], header) or PRESETS[args.preset]
    detected = detect_columns(header) or detect_columns(header, need_people=False)
    text = tuple(c.strip() for c in args.text_columns.split(",")) if args.text_columns else \
        (detected.text if detected else ())
    people = args.people_column or (detected.people if detected else "")
    same = detected is not None and people == detected.people
    try:
        return TableColumns(text=text, people=people,
                            id=args.id_column or (detected.id if detected else None),
                            date=detected.date if detected else None,
                            people_style=detected.people_style if same else "names",
                            people_fallback=detected.people_fallback if same else None)
    except ValueError as exc:
        raise CollectionError(args.collection, None, str(exc)) from None


def register(sub):
    p = sub.add_parser("stats", help=COMMANDS["stats"],
                       description="Load a collection (cached for next time) and print the "
                                   "paper's Table 1 and every problem found while loading.")
    add_collection_arguments(p)
    p.add_argument("--numbers", choices=NUMBER_RULES, default=TextSettings().numbers,
                   help=NUMBERS_HELP)
    p.add_argument("--json", action="store_true", help="print JSON (with every problem)")
    p.set_defaults(func=run)


def run(args) -> int:
    collection = open_collection(args, TextSettings(numbers=args.numbers))
    stats = collection.stats()
    report = collection.report
    if args.json:
        json.dump({"collection": collection.source, "name": collection.name,
                   "text_settings": collection.settings.to_dict(), "stats": stats.to_dict(),
                   "report": report.to_dict()}, sys.stdout, indent=2)
        print()
        return 0
    values = stats.to_dict()
    width = max(len(label) for _, label, _ in TABLE1 + tuple((None, s[1], None) for s in SPREADS))
    print(f"{collection.name} ({report.format}): {collection.source}")
    print(f"  text: {collection.settings.describe()}")
    for key, label, fmt in TABLE1:
        print(f"  {label:<{width}}  {fmt.format(values[key])}")
    for key, label in SPREADS:
        print(f"  {label:<{width}}  {values[key + '_mean']:.2f} ± {values[key + '_sd']:.2f}")
    print()
    print("Load report")
    print("\n".join("  " + line for line in report.summary().splitlines()))
    if report.problems:
        print("Problems")
        for problem in report.problems[:SHOWN_PROBLEMS]:
            print(f"  {problem}")
        if len(report.problems) > SHOWN_PROBLEMS:
            print(f"  ... and {len(report.problems) - SHOWN_PROBLEMS:,} more (--json lists all)")
    return 0
