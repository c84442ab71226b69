"""Writes DPDK copied K times, its people renamed per copy, so anyone can rebuild the
million-document collection the issue 28 figures were measured on (K = 20: 904,100 documents,
29,460 people).

    .venv/bin/python benchmarks/dpdk_copies.py /work/shared/data/dpdk-maintainers OUT_DIR [-k 20]

Copy k (1..K) of a document is `<doc_id>-k<k>`, of a person `<person_id>-k<k>` (named
"<name> (k)"); copy 1 keeps the original ids, so DPDK's topics and qrels still judge it. The
text is the same in every copy, so every word's statistics are K times DPDK's and every copy's
people are equally good answers: a collection of the size, not of new content.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def suffix(k: int) -> str:
    return "" if k == 1 else f"-k{k}"


def write_copies(source: Path, out: Path, copies: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    documents = (source / "documents.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    associations = (source / "associations.tsv").read_text(encoding="utf-8").splitlines()
    people = (source / "people.tsv").read_text(encoding="utf-8").splitlines()
    with open(out / "documents.tsv", "w", encoding="utf-8") as f:
        f.write(documents[0])
        for k in range(1, copies + 1):
            for line in documents[1:]:
                doc, rest = line.split("\t", 1)
                f.write(f"{doc}{suffix(k)}\t{rest}")
    with open(out / "associations.tsv", "w", encoding="utf-8") as f:
        f.write(associations[0] + "\n")
        for k in range(1, copies + 1):
            for line in associations[1:]:
                doc, person = line.split("\t")
                f.write(f"{doc}{suffix(k)}\t{person}{suffix(k)}\n")
    with open(out / "people.tsv", "w", encoding="utf-8") as f:
        f.write(people[0] + "\n")
        for k in range(1, copies + 1):
            for line in people[1:]:
                person, name, *rest = line.split("\t")
                name = name if k == 1 else f"{name} ({k})"
                f.write("\t".join([person + suffix(k), name, *rest]) + "\n")
    for extra in ("topics.dev.tsv", "qrels.dev.txt"):
        if (source / extra).exists():
            (out / extra).write_bytes((source / extra).read_bytes())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source", type=Path, help="the DPDK folder (documents, associations, people)")
    p.add_argument("out", type=Path, help="folder to write")
    p.add_argument("-k", "--copies", type=int, default=20)
    args = p.parse_args(argv)
    write_copies(args.source, args.out, args.copies)
    n = sum(1 for _ in open(args.out / "documents.tsv", encoding="utf-8")) - 1
    print(f"{args.out}: {n:,} documents ({args.copies} copies of {args.source})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
