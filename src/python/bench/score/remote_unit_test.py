from __future__ import annotations

import dataclasses

import pytest

from bench.errors import EnvironmentMismatch
from bench.score.remote_unit import WorkerTasks, check_pins, pins_for
from bench.testing.support import checkout_root, load_task


def test_pins_name_the_environment_by_lock_and_image():
    root = checkout_root()
    caesar, cron = load_task("synthetic.caesar_shift"), load_task("synthetic.cron_next")
    pins = pins_for(caesar, root)
    assert pins.image_digest.startswith("sha256:") and len(pins.lock_sha256) == 64
    assert pins.environment == pins_for(cron, root).environment  # one lock and image for every synthetic task
    assert dataclasses.replace(pins, lock_sha256="0" * 64).environment != pins.environment


def test_a_worker_whose_pins_differ_from_the_clients_refuses_the_task(tmp_path):
    root = checkout_root()
    spec = load_task("synthetic.caesar_shift")
    tasks = WorkerTasks(root, tmp_path, "bwrap")
    pins = pins_for(spec, root)
    task = tasks.get(spec, pins)  # a real preparation: certified, environment built, workspace laid out
    assert tasks.environments == {pins.environment}
    assert tasks.get(spec, pins) is task  # prepared once
    check_pins(task, pins)
    with pytest.raises(EnvironmentMismatch, match="lock_sha256 0{64} on the client"):
        check_pins(task, dataclasses.replace(pins, lock_sha256="0" * 64))
    with pytest.raises(EnvironmentMismatch, match="image_digest sha256:1"):
        tasks.get(spec, dataclasses.replace(pins, image_digest="sha256:1"))
