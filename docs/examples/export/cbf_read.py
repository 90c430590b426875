"""MOSEK's file reader (no licence needed to read) parses a CBF file; Clarabel solves what it
read. The conversion of MOSEK's task to Clarabel's cones is sparsekm.solvers.files.independent
(the round-trip tests' code): the file is never read by sparsekm's own CBF code."""
import sys

import mosek

from sparsekm.solvers.files.independent import read_with_mosek, solve_with_clarabel

path = sys.argv[1]
task = mosek.Task()
task.readdata(path)
print("MOSEK read", task.getnumvar(), "columns,", task.getnumacc(), "affine conic constraints")
data = read_with_mosek(path)
print("cones      ", data.cones[:4], "..." if len(data.cones) > 4 else "")
res = solve_with_clarabel(data)
print("clarabel   ", res.status, "objective", res.objective, "dual bound", res.bound)
