"""The vocabulary of a repair trajectory: failure signatures and candidate digests, and the convergence
classifier that reads them. Below the model and scoring layers, so both can speak it (the loop itself runs in
``bench.score.repair_loop``)."""
