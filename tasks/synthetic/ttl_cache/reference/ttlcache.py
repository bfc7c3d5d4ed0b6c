"""An LRU cache whose entries also expire after a fixed time to live."""

from collections import OrderedDict


class TTLCache:
    def __init__(self, capacity, ttl, clock):
        if capacity < 1 or ttl <= 0:
            raise ValueError("capacity must be >= 1 and ttl > 0")
        self.capacity = capacity
        self.ttl = ttl
        self._clock = clock
        self._entries = OrderedDict()  # key -> (value, expires_at), least recently used first

    def _purge(self, now):
        for key in [k for k, (_, expires) in self._entries.items() if now >= expires]:
            del self._entries[key]

    def set(self, key, value):
        now = self._clock()
        self._purge(now)
        if key in self._entries:
            del self._entries[key]
        elif len(self._entries) >= self.capacity:
            self._entries.popitem(last=False)
        self._entries[key] = (value, now + self.ttl)

    def get(self, key, default=None):
        now = self._clock()
        entry = self._entries.get(key)
        if entry is None:
            return default
        if now >= entry[1]:
            del self._entries[key]
            return default
        self._entries.move_to_end(key)
        return entry[0]

    def __contains__(self, key):
        entry = self._entries.get(key)
        return entry is not None and self._clock() < entry[1]

    def __len__(self):
        self._purge(self._clock())
        return len(self._entries)

    def keys(self):
        self._purge(self._clock())
        return list(self._entries)
