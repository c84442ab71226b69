"""Stage 7, evaluating: held-out documents as queries and the calibration of `auto` on them, TREC
qrels and runs, ir-measures, the randomization test with Benjamini-Hochberg, the analyses of
section 5 (Figures 2-5), Tables 2 and 4, and the one-command experiment that ties them
together."""
