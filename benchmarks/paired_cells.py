"""labelclean's side of real_data.py's cells in two checkouts, paired per cell.

``real_data.py`` runs labelclean and its peers on each cell; the peers do not
depend on labelclean, so a change to labelclean can be read without them, on
the same splits, flips and seeds, in a fraction of the time. This script fits
labelclean in two checkouts (each in fresh processes, at the same time) and
prints per cell: which model gave the evidence (fits where the two checkouts
differ), the flag F1, corrections (right of made), the largest share of a
class flagged, and the final model's accuracy on the clean test half, before
→ after. With ``--against SECTION`` the cells are also counted against the
peers' means of that ``real_data.py`` section of ``RESULTS.md`` (same cells,
same seeds)::

    git worktree add --detach /tmp/before <old commit>
    python benchmarks/paired_cells.py --repo /tmp/before --data iris wine \\
        --against real-data-s99
    python benchmarks/paired_cells.py --repo /tmp/before --data cars mpg \\
        --model pipeline:benchmarks/pipelines/multiclass-rosr-or-adaboost.toml
"""

import argparse
import re
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# In a child of run_in_checkout labelclean is already imported from the other
# checkout when this file loads, so these names come from that checkout.
from benchmarks._common import RESULTS, run_in_checkout, section_head, write_section
from benchmarks.real_data import (
    DATASETS,
    _mean,
    make_cleaner,
    parse_cell,
    split_and_flip,
)

ROOT = Path(__file__).resolve().parents[1]
CELLS = ["u0", "u10", "u20", "u30", "cc10", "cc20", "cc30"]


def child(name: str, cell: str, reps: int, model: str) -> list[dict]:
    """Fit labelclean as real_data.py does, in this process's checkout, on the
    cell's ``reps`` repetitions; what the comparison needs of each fit."""
    warnings.simplefilter("ignore")
    X, y = DATASETS[name]()
    out = []
    for seed in range(reps):
        X_tr, X_te, y_tr, y_te, y_noisy, flipped = split_and_flip(
            X, y, *parse_cell(cell), seed
        )
        n_classes = np.unique(np.asarray(y)).shape[0]
        cleaner = make_cleaner(model, seed, n_classes).fit(X_tr, y_noisy)
        flagged = np.asarray(cleaner.decisions_) != "kept"
        corrected = np.asarray(cleaner.decisions_) == "corrected"
        cleaned = np.asarray(cleaner.audit_["cleaned_label"])
        labels = np.asarray(y_noisy)
        shares = [flagged[labels == c].mean() for c in np.unique(labels)]
        out.append({
            "chosen": cleaner.model_selection_.get("chosen"),
            "flagged": int(flagged.sum()),
            "hits": int((flagged & flipped).sum()),
            "flips": int(flipped.sum()),
            "largest_loss": float(max(shares)),
            "corrections": int(corrected.sum()),
            "right": int((corrected & (cleaned == np.asarray(y_tr))).sum()),
            "accuracy": float(np.mean(cleaner.predict(X_te) == np.asarray(y_te))),
        })  # fmt: skip
    return out


def flag_f1(fit: dict) -> float:
    """F1 of the flagged rows against the flipped ones."""
    both = fit["flagged"] + fit["flips"]
    return 2 * fit["hits"] / both if both else 0.0


def peer_means(section: str) -> dict:
    """(data, cell) → the better cleanlab's flag F1 and the better
    CleanLearning's accuracy, from a real_data.py section of RESULTS.md."""
    text = RESULTS.read_text()
    begin, end = f"<!-- begin {section} -->", f"<!-- end {section} -->"
    if begin not in text:
        raise SystemExit(f"no section {section!r} in {RESULTS}")
    peers = {}
    for line in text.split(begin)[1].split(end)[0].splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        match = len(cols) == 19 and re.fullmatch(r"(u|cc) (\d+)%", cols[1])
        if not match:
            continue
        cell = f"{match[1]}{match[2]}"

        def value(text):
            return float(text.split()[0]) if text[:1].isdigit() else None

        f1s = [value(cols[3]), value(cols[4])]
        peers[cols[0], cell] = {
            "f1": None if None in f1s else max(f1s),
            "accuracy": max(value(cols[15]), value(cols[16])),
        }
    return peers


def cell_line(name, cell, before, after) -> str:
    """One table row: before → after on the cell's repetitions."""
    changed = sum(
        b["chosen"] != a["chosen"] for b, a in zip(before, after, strict=True)
    )
    chosen = sorted({str(a["chosen"]) for a in after})

    def corr(fits):
        return f"{sum(f['right'] for f in fits)}/{sum(f['corrections'] for f in fits)}"

    f1 = "–"
    if parse_cell(cell)[1] > 0:
        f1 = f"{_mean([flag_f1(f) for f in before]):.3f} → "
        f1 += f"{_mean([flag_f1(f) for f in after]):.3f}"
    loss = [_mean([f["largest_loss"] for f in fits]) for fits in (before, after)]
    acc = [_mean([f["accuracy"] for f in fits]) for fits in (before, after)]
    return (
        f"| {name} | {cell} | {changed} of {len(after)} ({', '.join(chosen)}) "
        f"| {f1} | {corr(before)} → {corr(after)} | {loss[0]:.3f} → {loss[1]:.3f} "
        f"| {acc[0]:.3f} → {acc[1]:.3f} |"
    )


def summary(results, peers) -> list[str]:
    """Means over the noisy cells, and counts against the peers."""
    noisy = [k for k in results if parse_cell(k[1])[1] > 0]
    clean = [k for k in results if parse_cell(k[1])[1] == 0]
    lines = []
    for side, i in (("before", 0), ("after", 1)):
        f1 = [_mean([flag_f1(f) for f in results[k][i]]) for k in noisy]
        made = sum(f["corrections"] for k in noisy for f in results[k][i])
        right = sum(f["right"] for k in noisy for f in results[k][i])
        held = sum(
            _mean([f["largest_loss"] for f in results[k][i]]) <= 0.05 for k in clean
        )
        line = (
            f"- {side}: mean flag F1 {_mean(f1) if f1 else float('nan'):.3f} over "
            f"{len(noisy)} noisy cells; corrections {right} right of {made}; "
            f"no class losing more than 5 % (mean) in {held} of {len(clean)} "
            "clean cells"
        )
        known = [k for k in noisy if k in peers and peers[k]["f1"] is not None]
        if known:
            f1_met = sum(
                _mean([flag_f1(f) for f in results[k][i]]) >= peers[k]["f1"] - 1e-9
                for k in known
            )
            acc_met = sum(
                _mean([f["accuracy"] for f in results[k][i]])
                >= peers[k]["accuracy"] - 1e-9
                for k in known
            )
            line += (
                f"; flag F1 ≥ the better cleanlab's in {f1_met} of {len(known)}, "
                f"final-model accuracy ≥ the better CleanLearning's in {acc_met}"
            )
        lines.append(line)
    changed = sum(
        b["chosen"] != a["chosen"]
        for k in results
        for b, a in zip(*results[k], strict=True)
    )
    fits = sum(len(results[k][1]) for k in results)
    lines.append(f"- The evidence's model differs in {changed} of {fits} fits.")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="the other checkout")
    parser.add_argument("--data", nargs="+", choices=list(DATASETS), required=True)
    parser.add_argument("--noise", nargs="+", default=CELLS)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--model", default="auto", help="as real_data.py's --model")
    parser.add_argument("--against", help="a real_data.py section of the same cells")
    parser.add_argument("--section", default="paired-cells")
    parser.add_argument("--note", default="", help="a line saying what was compared")
    args = parser.parse_args()
    peers = peer_means(args.against) if args.against else {}
    script = Path(__file__).resolve()
    results = {}
    lines = [
        *section_head("labelclean in two checkouts, cell by cell (paired_cells.py)"),
        *([args.note, ""] if args.note else []),
        f"Before: `{args.repo}`; after: this checkout; labelclean `{args.model}`. "
        f"{args.reps} repetitions per cell (real_data.py's splits, flips and "
        "seeds), means over them. Evidence: fits whose evidence's model differs "
        "(the models after); flag F1 against the flipped rows; corrections "
        "restoring the true label, of those made; the largest share of a class "
        "flagged; the final model's accuracy on the clean test half."
        + (f" Peers: `{args.against}`'s means." if args.against else ""),
        "",
        "| data | noise | evidence's model differs | flag F1 | corrections "
        "| largest class share flagged | accuracy |",
        "|" + "---|" * 7,
    ]
    with ThreadPoolExecutor(2) as pool:
        for name in args.data:
            for cell in args.noise:
                call = f"m.child({name!r}, {cell!r}, {args.reps}, {args.model!r})"
                before, after = pool.map(
                    run_in_checkout, (args.repo, ROOT), (script, script), (call, call)
                )
                results[name, cell] = (before, after)
                lines.append(cell_line(name, cell, before, after))
                print(lines[-1], flush=True)
    lines += ["", *summary(results, peers)]
    print("\n".join(lines[-3:]))
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
