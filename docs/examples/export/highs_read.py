"""HiGHS reads an exported MPS file (highspy; no sparsekm import). HiGHS solves LP, QP and
MILP but not MIQP: with integrality dropped it solves the continuous relaxation, and with
the binaries v fixed at a support it solves the SVM on that support."""
import sys

import highspy

path, support = sys.argv[1], [int(j) for j in sys.argv[2].split(",")]
h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.readModel(path)
lp = h.getLp()
names = list(lp.col_names_)
for j in range(lp.num_col_):
    h.changeColIntegrality(j, highspy.HighsVarType.kContinuous)
h.run()
print("relaxed      ", h.modelStatusToString(h.getModelStatus()),
      h.getInfo().objective_function_value)
for j, name in enumerate(names):
    if name.startswith("v("):
        on = float(int(name[2:-1]) in support)
        h.changeColBounds(j, on, on)
h.run()
print("v fixed at", support, h.modelStatusToString(h.getModelStatus()),
      h.getInfo().objective_function_value)
