"""The scripted study's trajectories: played on the host against the real synthetic tasks, checked, and written
as data under ``tasks/synthetic/_scripted/`` for ``bench.model.scripted`` to replay (``python -m
bench.study.generate``)."""
