"""The registry: every entry cites its paper, options regroup, the docs' registry page lists
every entry with its options."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparsekm import registry

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def test_the_docs_registry_page_lists_every_entry_and_option() -> None:
    import sys

    sys.path.insert(0, str(TOOLS))
    try:
        import docs_registry
    finally:
        sys.path.remove(str(TOOLS))
    page = docs_registry.markdown()
    for e in registry.entries():
        assert f"| {e.problem} | {e.kind} | `{e.name}` |" in page, e
        for name in e.params:
            assert f"| `{name}` |" in page, (e.name, name)
    assert "| `node_limit` |" in page and "### method `bnb`" in page


def test_every_entry_cites_paper_and_reference_and_has_a_summary() -> None:
    entries = registry.entries()
    assert {e.problem for e in entries} >= {"fs-linear", "fs-kernel", "svm"}
    for e in entries:
        assert e.paper and e.ref and e.summary, e
        assert e.problem in registry.problems(), e


def test_grouped_options_are_flat_and_regroup() -> None:
    """Paper D's exact procedure groups the strategy options in Search; the registry shows
    them flat and regroups them for the call."""
    from sparsekm.algorithms.fs_linear.common import Search

    e = registry.get("fs-linear", "method", "exact")
    assert {"strategy", "k", "rho", "cop_form", "s", "gap_tol"} <= set(e.options)
    kw = e.bind(rho=3, s=2)
    assert kw == {"search": Search(rho=3), "s": 2}
    with pytest.raises(ValueError, match="takes no option bogus"):
        e.bind(bogus=1)


def test_unknown_names_list_the_choices() -> None:
    with pytest.raises(ValueError, match="choose one of: .*kernel-search"):
        registry.get("fs-linear", "method", "nope")
    with pytest.raises(ValueError, match="unknown problem"):
        registry.problem("nope")
    assert registry.get("fs-linear", "relaxation", "SCoP").name == "shor-cop"  # alias
