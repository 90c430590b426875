"""Two files of the kind a user brings: a CSV with string labels and an svmlight file.

Both hold the ten "mean" measurements of the bundled breast_cancer_diagnostic rows (569
tumours). The CSV's label column `diagnosis` holds M (malignant) or B (benign); the svmlight
file codes the same classes as 4 and 2, as LIBSVM's breast-cancer set does.
"""
import pandas as pd
from sklearn.datasets import dump_svmlight_file

from sparsekm.data import load_dataset

ds = load_dataset("breast_cancer_diagnostic")          # y = +1 for malignant
frame = pd.DataFrame(ds.X[:, :10], columns=ds.feature_names[:10])
frame["diagnosis"] = ["M" if label > 0 else "B" for label in ds.y]
frame.to_csv("tumours.csv", index=False)
dump_svmlight_file(ds.X[:, :10], [4 if label > 0 else 2 for label in ds.y], "tumours.svm",
                   zero_based=False)
print(frame.head(3).to_string())
