"""A synchronous event emitter with snapshot semantics."""


class _Registration:
    __slots__ = ("handler", "once")

    def __init__(self, handler, once):
        self.handler = handler
        self.once = once


class Emitter:
    def __init__(self):
        self._registrations = {}

    def on(self, event, handler):
        self._registrations.setdefault(event, []).append(_Registration(handler, False))

    def once(self, event, handler):
        self._registrations.setdefault(event, []).append(_Registration(handler, True))

    def off(self, event, handler):
        registrations = self._registrations.get(event, [])
        for index, registration in enumerate(registrations):
            if registration.handler == handler:
                del registrations[index]
                return True
        return False

    def listeners(self, event):
        return [r.handler for r in self._registrations.get(event, [])]

    def emit(self, event, *args):
        registrations = self._registrations.get(event, [])
        called = 0
        for registration in registrations:
            if registration.once:
                registrations.remove(registration)
            registration.handler(*args)
            called += 1
        return called
