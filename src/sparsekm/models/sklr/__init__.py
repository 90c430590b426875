"""Paper C: sparse kernel logistic regression (problem, dual (22), Lemma 1 / Obs. 1 / Prop. 1)."""
