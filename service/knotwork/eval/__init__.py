"""Evaluation: recall and answer quality on question sets, through the same code users run."""
