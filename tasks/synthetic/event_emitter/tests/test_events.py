import events


def recorder(log, name):
    def handler(*args):
        log.append((name, args))
    return handler


def test_handlers_called_in_order_with_args():
    log = []
    em = events.Emitter()
    em.on("x", recorder(log, "a"))
    em.on("x", recorder(log, "b"))
    assert em.emit("x", 1, 2) == 2
    assert log == [("a", (1, 2)), ("b", (1, 2))]


def test_same_handler_twice_and_off_removes_earliest():
    log = []
    em = events.Emitter()
    a, b = recorder(log, "a"), recorder(log, "b")
    em.on("x", a)
    em.on("x", b)
    em.on("x", a)
    assert em.off("x", a) is True
    assert em.listeners("x") == [b, a]
    assert em.off("x", recorder(log, "c")) is False


def test_once_handler_runs_once():
    log = []
    em = events.Emitter()
    em.once("x", recorder(log, "a"))
    em.emit("x")
    assert em.emit("x") == 0
    assert log == [("a", ())]


def test_handler_after_once_handler_still_runs():
    log = []
    em = events.Emitter()
    em.once("x", recorder(log, "first"))
    em.on("x", recorder(log, "second"))
    assert em.emit("x") == 2
    assert [name for name, _ in log] == ["first", "second"]


def test_handler_added_during_emit_waits_for_next_emit():
    log = []
    em = events.Emitter()
    late = recorder(log, "late")
    em.on("x", lambda: em.on("x", late))
    assert em.emit("x") == 1
    assert log == []


def test_handler_removed_during_emit_still_runs_that_time():
    log = []
    em = events.Emitter()
    b = recorder(log, "b")
    em.on("x", lambda: em.off("x", b))
    em.on("x", b)
    assert em.emit("x") == 2
    assert log == [("b", ())]
    assert em.emit("x") == 1


def test_nested_emit_does_not_rerun_once_handler():
    log = []
    em = events.Emitter()

    def reentrant():
        log.append("once")
        em.emit("x")

    em.once("x", reentrant)
    em.emit("x")
    assert log == ["once"]


def test_emit_unknown_event():
    assert events.Emitter().emit("nothing") == 0
