"""The instance library's docs page (tools/docs_library.py): its counts are the manifest's."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("docs_library",
                                                  ROOT / "tools" / "docs_library.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_counts_equal_the_manifest_counts() -> None:
    gen = _generator()
    doc = gen.load()
    rows = doc["instances"]
    assert gen.counts(rows) == {k: doc["counts"][k] for k in gen.COUNTED}
    per_table = gen.by_table(rows)
    for key in gen.COUNTED:            # the per-table rows add up to the totals
        assert sum(c[key] for c in per_table.values()) == doc["counts"][key]
    page = gen.markdown()
    c = doc["counts"]
    assert (f"**{c['instances']} instances, {c['certified']} certified, {c['confirmed']} "
            "confirmed") in page
    confirmed = [r["instance"] for r in rows if r["confirmed"]]
    section = page.split("## Certified and confirmed")[1].split("## Every certified")[0]
    assert [line.split("`")[1] for line in section.splitlines()
            if line.startswith("| `")] == confirmed


def test_a_certified_row_is_certified_by_the_manifest_rule() -> None:
    """Each certified row's gap is (best - bound) / |best| within the stated 1e-4."""
    rows = [r for r in _generator().load()["instances"] if r["certified"]]
    assert rows
    for r in rows:
        gap = (r["best_objective"] - r["certified_bound"]) / abs(r["best_objective"])
        assert abs(max(gap, 0.0) - r["gap"]) <= 1e-12 and r["gap"] <= 1e-4, r["instance"]
