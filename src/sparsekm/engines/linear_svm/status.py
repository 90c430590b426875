"""Outcomes of a decision "is the SVM optimum on these columns below a cutoff?"."""

BELOW, ABOVE, UNDECIDED = 0, 1, 2
