"""sparsekm's own compiled engines: each solves one problem family on arrays, with certificates.

Unlike the backends of :mod:`sparsekm.solvers` (which take a model and hand it to an outside
solver), an engine is an algorithm written here for one structure, in numba:

* :mod:`.smo` -- the one SMO engine for every kernel dual (SVM hinge, paper A eq. (3); KLR
  logistic, paper C eq. (22)), second-order working set, shrinking, warm starts, certificates;
* :mod:`.linear_svm` -- the SVM (1) of paper D on a support: Mehrotra interior point and pair
  updates, certified to a relative gap;
* :mod:`.node_ipm` -- the node dual of paper D's branch and bound (box, big-M forms);
* :mod:`.perspective` -- the structured interior point of DSCoP (13)'s dual.

Engines sit beside the backend layer: models, relaxations and algorithms call them; they import
nothing above :mod:`sparsekm.solvers` (its :class:`~sparsekm.solvers.Result`).
"""
