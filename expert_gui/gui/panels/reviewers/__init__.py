"""The Reviewers panel: many papers from outside assigned to the collection's people.

`panel.py` the panel (opening the papers, Run, Solve again, export, the app's state); `form.py`
the settings (K, M, m, the co-author window, method, recency, pool, conflicts file), remembered;
`controls.py` Run, Solve again, Stop, the progress and the exports; `work.py` the work the
workers run; `papers_view.py` the papers and their authors;
`conflicts_view.py` the conflicts of interest; `assignment_view.py` the assignment by paper and
by person, with pinning and forbidding; `pins_view.py` the pinned and forbidden pairs."""
