"""Given means given: an estimator passes every value the user set, a value equal to a
declared default included; a method option left at its sentinel ``"auto"`` takes the chosen
method's own default (paper A's ``n_samples``: 100 for ``bnb``, 500 for ``ls-star``;
``opt_window``: 10 for ``decsub``, 5 for ``ls-star``)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from sparsekm import registry
from sparsekm.estimators import CardinalityKernelSVC, CardinalityLinearSVC
from sparsekm.estimators.declared import METHOD_DEFAULT, resolved


def test_the_defaults_differ_between_methods() -> None:
    """The premise: the same option has two defaults, and the estimator shows neither."""
    bnb = registry.get("fs-kernel", "method", "bnb").options
    ls = registry.get("fs-kernel", "method", "ls-star").options
    assert bnb["n_samples"] == 100 and ls["n_samples"] == 500
    assert registry.get("fs-kernel", "method", "decsub").options["opt_window"] == 10
    assert ls["opt_window"] == 5
    est = CardinalityKernelSVC()
    assert est.n_samples == METHOD_DEFAULT and est.opt_window == METHOD_DEFAULT
    assert "n_samples : " in type(est).__doc__ and "'auto': the chosen method's own" in \
        type(est).__doc__


@pytest.mark.parametrize(("option", "value", "own"), [("n_samples", 100, 500),
                                                      ("opt_window", 10, 5)])
def test_a_value_equal_to_another_default_reaches_the_method(monkeypatch, option, value,
                                                              own) -> None:
    """ls-star with n_samples=100 (bnb's default, the declaration's first) runs with 100, not
    its own 500; left at "auto" it runs with its own; a clone keeps both."""
    import sparsekm.algorithms.fs_kernel as fk

    seen: list[dict] = []
    real = fk.solve_fs_kernel

    def spy(problem, method, plan, **options):
        seen.append(dict(options))
        return real(problem, method, plan, **options)

    monkeypatch.setattr(fk, "solve_fs_kernel", spy)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1, 0)
    given = CardinalityKernelSVC(B=2, method="ls-star", time_limit=20, **{option: value})
    call, _ = resolved(given)
    assert call.options[option] == value and call.effective_options()[option] == value
    given.fit(X, y)
    assert seen[-1][option] == value
    left = CardinalityKernelSVC(B=2, method="ls-star", time_limit=20)
    call, _ = resolved(left)
    assert option not in call.options and call.effective_options()[option] == own
    left.fit(X, y)
    assert option not in seen[-1]
    assert clone(given).get_params()[option] == value
    assert clone(left).get_params()[option] == METHOD_DEFAULT


def test_a_problem_parameter_equal_to_its_default_is_given() -> None:
    """Every value set is given (the run's params say so); a method option the chosen method
    does not take is ignored, as scikit-learn's SVC ignores degree for an rbf kernel."""
    call, _ = resolved(CardinalityLinearSVC(B=5, C=10.0, method="fast", rho=10))
    assert call.problem["B"] == 5 and call.problem["C"] == 10.0
    assert "rho" not in call.options
    call, _ = resolved(CardinalityLinearSVC(method="kernel-search", rho=10))
    assert call.options["rho"] == 10
