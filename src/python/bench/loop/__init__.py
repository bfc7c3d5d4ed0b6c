"""The vocabulary of a repair trajectory: failure signatures and candidate digests, the convergence classifier
that reads them, and the score record (``records``) a scored unit is written as. Below the model, scoring and
report layers, so all of them can speak it (the loop itself runs in ``bench.score.repair_loop``)."""
