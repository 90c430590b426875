"""SCIP reads an exported LP / MPS / NL file and solves it (pyscipopt; no sparsekm import)."""
import sys

import pyscipopt

path = sys.argv[1]
m = pyscipopt.Model()
m.hideOutput()
m.readProblem(path)                        # SCIP's own LP / MPS / NL reader
m.setParam("limits/gap", 1e-9)
m.setParam("numerics/feastol", 1e-9)       # as the round-trip tests
m.optimize()
print("status     ", m.getStatus())
print("objective  ", m.getObjVal())
print("dual bound ", m.getDualbound())
chosen = sorted(int(v.name[2:-1]) for v in m.getVars()
                if v.name.startswith("v(") and m.getVal(v) > 0.5)
if chosen:
    print("v_j = 1 for j in", chosen)
if len(sys.argv) > 2:
    m.writeBestSol(sys.argv[2])            # SCIP's .sol file, for sparsekm check
    print("solution written to", sys.argv[2])
