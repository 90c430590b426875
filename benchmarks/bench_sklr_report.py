"""Turn ``sklr_grid_{A,B,C}.json`` (bench_sklr.py) into ``sklr_tables.md``: paper C's Tables
2-4 in shape, with the paper's numbers beside ours, and the speed comparison with libsvm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

# paper C, Table 2: (accuracy, ratio of selected points) -- best-accuracy model, then the
# sparsest of the 3 most accurate (the extracted header lists them in the other order; the
# text's averages, 42.2 % and 33.1 % for S-KLR, 28.8 % and 26.8 % for SVM, fix which is which)
PAPER_T2 = {  # name: (sklr, sklr3, svm, svm3)
    "banknote": ((1, .162), (1, .06), (1, .009), (1, .009)),
    "coil2000": ((.94, .265), (.94, .155), (.94, .119), (.94, .119)),
    "diabetes": ((.767, .724), (.77, .529), (.767, .531), (.745, .49)),
    "ionosphere": ((.946, .488), (.946, .488), (.934, .459), (.926, .444)),
    "magic": ((.857, .754), (.857, .69), (.874, .299), (.875, .293)),
    "monk2": ((.958, .297), (.958, .292), (.976, .286), (.974, .222)),
    "ring": ((.978, .113), (.978, .085), (.978, .09), (.974, .07)),
    "sonar": ((.856, .941), (.866, .924), (.851, .923), (.643, .924)),
    "spambase": ((.935, .518), (.935, .246), (.935, .206), (.931, .173)),
    "twonorm": ((.978, .141), (.976, .075), (.977, .101), (.975, .075)),
    "waveform": ((.91, .516), (.91, .282), (.909, .287), (.909, .287)),
    "wisconsin": ((.975, .143), (.974, .145), (.975, .147), (.965, .115)),
}
PAPER_T3 = {  # KLR-1ord, KLR-2ord (lam = 0): (accuracy, ratio)
    "banknote": ((.977, 1), (1, .694)), "coil2000": ((.94, 0), (.94, .155)),
    "diabetes": ((.763, 1), (.776, 1)), "ionosphere": ((.943, 1), (.94, 1)),
    "magic": ((.839, 1), (.807, .69)), "monk2": ((.96, 1), (.972, .96)),
    "ring": ((.949, 1), (.978, .817)), "sonar": ((.823, 1), (.823, 1)),
    "spambase": ((.925, 1), (.934, .95)), "twonorm": ((.978, 1), (.979, .987)),
    "waveform": ((.909, 1), (.911, .998)), "wisconsin": ((.952, 1), (.951, .978)),
}
PAPER_T4 = {"banknote": .783, "coil2000": .734, "diabetes": .845, "ionosphere": .638,
            "magic": .982, "monk2": .712, "ring": .947, "sonar": .759, "spambase": 1.015,
            "twonorm": .981, "waveform": .845, "wisconsin": .618}


def _load(results: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for tier in "ABC":
        p = results / f"sklr_grid_{tier}.json"
        if p.exists():
            d = json.loads(p.read_text())
            for name, r in d["datasets"].items():
                out[name] = dict(r, tier=tier, config=d["config"])
    return out


def _mean(folds: list[dict], key: str, field: str) -> float:
    vals = [f[key][field] for f in folds if key in f]
    return float(np.mean(vals)) if vals else float("nan")


def _f(x: float, d: int = 3) -> str:
    return "" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{d}f}"


def _grid_line(cfg: dict) -> str:
    cs = ", ".join(f"{c:g}" for c in cfg["C"])
    return f"C in {{{cs}}}, {cfg['lam_steps']} lambda values, {cfg['folds']} fold(s)"


def table2(data: dict) -> list[str]:
    rows = ["| data | m | grid | S-KLR acc | sel | paper | S-KLR best-of-3 acc | sel | paper "
            "| SVM acc | sel | paper | SVM best-of-3 acc | sel | paper | LR-featmap acc |",
            "|" + "---|" * 17]
    acc: dict[str, list[float]] = {k: [] for k in ("sklr", "sklr3", "svc", "svc3")}
    sel: dict[str, list[float]] = {k: [] for k in acc}
    for name, r in data.items():
        F = r["folds"]
        p = PAPER_T2[name]
        cells = [name, str(r["m"]), r["tier"]]
        for key, pv in zip(("sklr", "sklr3", "svc", "svc3"), p):
            a, s = _mean(F, key, "test_acc"), _mean(F, key, "sparsity")
            acc[key].append(a)
            sel[key].append(s)
            cells += [_f(a), _f(s), f"{pv[0]:g} / {pv[1]:g}"]
        cells.append(_f(_mean(F, "lr", "test_acc")))
        rows.append("| " + " | ".join(cells) + " |")
    avg = ["**mean**", "", ""]
    for key in ("sklr", "sklr3", "svc", "svc3"):
        avg += [f"{np.mean(acc[key]):.3f} ({np.std(acc[key]):.3f})", _f(np.mean(sel[key])), ""]
    rows.append("| " + " | ".join(avg + [""]) + " |")
    return rows


def table3(data: dict) -> list[str]:
    rows = ["| data | KLR-1ord acc | sel | paper | KLR-2ord acc | sel | paper | S-KLR acc | "
            "sel | 1ord/2ord capped at 10^4 (retrain) |", "|" + "---|" * 10]
    for name, r in data.items():
        F = r["folds"]
        p = PAPER_T3[name]
        cells = [name]
        for key, pv in zip(("klr1", "klr2"), p):
            cells += [_f(_mean(F, key, "test_acc")), _f(_mean(F, key, "sparsity")),
                      f"{pv[0]:g} / {pv[1]:g}"]
        cells += [_f(_mean(F, "sklr", "test_acc")), _f(_mean(F, "sklr", "sparsity"))]
        capped = (sum(not f["klr1"]["converged"] for f in F),
                  sum(not f["klr2"]["converged"] for f in F))
        cells.append(f"{capped[0]} / {capped[1]} of {len(F)}")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def table4(data: dict) -> tuple[list[str], dict[str, float]]:
    rows = ["| data | m_train (95 %) | fits | S-KLR-1ord s | S-KLR-2ord s | 2ord/1ord time "
            "| paper | 1ord it | 2ord it | 2ord/1ord it | capped 1ord / 2ord |",
            "|" + "---|" * 11]
    ratios_t, ratios_i, uncapped = [], [], []
    for name, r in data.items():
        g = r["folds"][0]["grid"]
        t1 = np.mean([x["smo1"]["time"] for x in g])
        t2 = np.mean([x["smo2"]["time"] for x in g])
        i1 = np.mean([x["smo1"]["it"] for x in g])
        i2 = np.mean([x["smo2"]["it"] for x in g])
        ratios_t.append(t2 / t1)
        ratios_i.append(i2 / i1)
        cap = (sum(not x["smo1"]["converged"] for x in g),
               sum(not x["smo2"]["converged"] for x in g))
        if 2 * max(cap) < len(g):  # the iteration ratio means something
            uncapped.append(i2 / i1)
        m_sub = int(round(r["folds"][0]["m_train"] * 0.95))
        rows.append(f"| {name} | {m_sub} | {len(g)} | {t1:.4f} | {t2:.4f} | {t2 / t1:.3f} | "
                    f"{PAPER_T4[name]:.3f} | {i1:.0f} | {i2:.0f} | {i2 / i1:.3f} | "
                    f"{cap[0]} / {cap[1]} |")
    summary = {"time_ratio_mean": float(np.mean(ratios_t)),
               "it_ratio_mean": float(np.mean(ratios_i)),
               "it_ratio_max": float(np.max(uncapped)), "n_uncapped": len(uncapped),
               "it_ratio_mean_uncapped": float(np.mean(uncapped))}
    rows.append(f"| **mean** | | | | | {summary['time_ratio_mean']:.3f} | 0.821 | | | "
                f"{summary['it_ratio_mean']:.3f} | |")
    return rows, summary


def speed(data: dict) -> tuple[list[str], dict[str, float]]:
    """smo2 (lam = C/9, the grid point next to Appendix C's C/10) vs SVC at the same C, same
    kernel access and tol, fold 0's validation fits; and exact-feature-map LR vs smo2 at
    lam = 0."""
    rows = ["| data | kernel | C | smo2 s (lam = C/9) | SVC s | smo2/SVC | smo2 it | SVC it "
            "| smo2 s (lam = 0) | LR-featmap s |", "|" + "---|" * 10]
    ratios = []
    for name, r in data.items():
        f0 = r["folds"][0]
        svc = {x["C"]: x for x in f0["svc_grid"]}
        lr = {x["C"]: x for x in f0.get("lr_grid", [])}
        for C in r["config"]["C"]:
            g9 = [x for x in f0["grid"] if x["C"] == C and abs(x["lam"] - C / 9) < 1e-12 * C]
            g0 = [x for x in f0["grid"] if x["C"] == C and x["lam"] == 0.0]
            if not g9:
                continue
            s2, sv = g9[0]["smo2"], svc[C]
            ratio = s2["time"] / sv["time"]
            ratios.append(ratio)
            lr_t = _f(lr[C]["time"], 4) if C in lr else "n/a"
            kern = "rows (LRU)" if r["tier"] == "C" else "precomputed"
            rows.append(f"| {name} | {kern} | {C:g} | {s2['time']:.4f} | {sv['time']:.4f} | "
                        f"{ratio:.2f} | {s2['it']}{'' if s2['converged'] else ' (cap)'} | "
                        f"{sv['it']}{'' if sv['converged'] else ' (cap)'} | "
                        f"{g0[0]['smo2']['time']:.4f} | {lr_t} |")
    r = np.array(ratios)
    summary = {"median": float(np.median(r)), "within_2x": float(np.mean(r <= 2.0)),
               "n": int(r.size), "max": float(r.max()), "min": float(r.min())}
    return rows, summary


def table4_uncapped(results: Path) -> list[str]:
    """Table 4 without the cap (tier B datasets; ``bench_sklr.py uncapped``)."""
    p = results / "sklr_table4_uncapped.json"
    if not p.exists():
        return []
    d = json.loads(p.read_text())
    rows = ["| data | m (95 %) | C | lam | 1ord it | 2ord it | it ratio | 1ord s | 2ord s | "
            "time ratio | sel |", "|" + "---|" * 11]
    ri, rt = [], []
    for name, r in d["datasets"].items():
        for f in r["fits"]:
            a, b = f["smo1"], f["smo2"]
            done = a["status"] == b["status"] == "converged"
            if done:
                ri.append(b["it"] / a["it"])
                rt.append(b["time"] / a["time"])
            flag = "" if done else f" ({a['status']} / {b['status']})"
            rows.append(f"| {name} | {r['m_sub']} | {f['C']:g} | {f['lam']:.3g} | {a['it']} | "
                        f"{b['it']} | {b['it'] / a['it']:.3f}{flag} | {a['time']:.2f} | "
                        f"{b['time']:.2f} | {b['time'] / a['time']:.3f} | "
                        f"{b['sparsity']:.3f} |")
    head = [f"## Table 4 without the 10,000-iteration cap (fold 0, tol = 1e-5, at most "
            f"{d['time_limit']:.0f} s per fit)", "",
            f"Converged pairs: {len(ri)}; mean iteration ratio 2ord/1ord "
            f"{np.mean(ri):.3f} (max {np.max(ri):.3f}), mean time ratio {np.mean(rt):.3f}.", ""]
    return head + rows + [""]


def write_report(results: Path) -> None:
    data = _load(results)
    order = [n for n in PAPER_T2 if n in data]
    data = {n: data[n] for n in order}
    t4, s4 = table4(data)
    sp, ss = speed(data)
    tiers = {}
    for r in data.values():
        tiers[r["tier"]] = _grid_line(r["config"])
    lines = [
        "# Paper C, Tables 2-4 in shape (`benchmarks/bench_sklr.py`)", "",
        "Features scaled to [0, 1] on each training fold, rbf gamma = 0.5 (sigma = 1), 5-fold "
        "stratified CV (seed 0); per fold every grid point is fitted on 95 % of the training "
        "rows and scored on the other 5 %; the best configuration and the sparsest of the 3 "
        "most accurate (ranking: validation accuracy, ties in grid order) are refitted on the "
        "whole training fold and tested. `sel` = fraction of training points kept (a_i above "
        "gamma = 1e-5). tol = 1e-5 for every solver; SMO with the paper's 10,000-iteration "
        "cap, SVC with 10^6. `paper` = paper C's number (accuracy / selected).", "",
        "Grids (cut where the shared 2-core machine cannot finish the full 9 x 10 grid x 5 "
        "folds):", ""]
    lines += [f"- tier {t}: {txt}" for t, txt in sorted(tiers.items())]
    lines += ["", "## Table 2: accuracy and selected points (S-KLR = smo2; SVM = libsvm via SVC "
              "on the same kernel; LR-featmap = scikit-learn LogisticRegression on the exact "
              "empirical feature map, i.e. KLR with lam = 0, training folds <= 2,500 rows)", ""]
    lines += table2(data)
    lines += ["", "## Table 3: KLR-1ord / KLR-2ord (lam = 0, only C tuned) vs S-KLR", ""]
    lines += table3(data)
    lines += ["", "## Table 4: S-KLR-1ord vs S-KLR-2ord, mean over fold 0's grid fits", ""]
    lines += t4
    lines += ["", f"Goal smo2 <= 0.8 x the iterations of smo1, over the {s4['n_uncapped']} "
              "datasets where most grid fits converged (elsewhere both rules stop at the cap and "
              f"the ratio is 1 by construction): mean {s4['it_ratio_mean_uncapped']:.3f}, worst "
              f"{s4['it_ratio_max']:.3f}. Without the cap on the large datasets: next table.",
              ""]
    lines += table4_uncapped(results)
    lines += ["## Speed: smo2 vs libsvm (SVC) on the same kernel and tol, fold 0", ""]
    lines += sp
    lines += ["", f"Goal smo2 within 2x of libsvm: median smo2/SVC time ratio "
              f"{ss['median']:.2f} over {ss['n']} (dataset, C) pairs; {100 * ss['within_2x']:.0f} "
              f"% within 2x (range {ss['min']:.2f} - {ss['max']:.2f}). Note the two solve "
              "different problems (the logistic dual has no zero variables to skip at "
              "lam = 0); `bench_sklr_engine.py` compares the engine and libsvm on the *same* "
              "hinge problem.", ""]
    walls = [f"{n}: {r['wall_s']:.0f} s (peak RSS {r['maxrss_mb']:.0f} MB)"
             for n, r in data.items()]
    lines += ["Wall time per dataset (whole protocol): " + "; ".join(walls) + "."]
    (results / "sklr_tables.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_report(Path(__file__).parent / "results")
