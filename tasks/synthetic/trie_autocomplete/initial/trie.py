"""A prefix tree over strings."""

_END = None  # key marking "a word ends here"; characters are never None


class Trie:
    def __init__(self):
        self._root = {}
        self._size = 0

    def insert(self, word):
        if not word:
            raise ValueError("cannot store the empty string")
        node = self._root
        for ch in word:
            node = node.setdefault(ch, {})
        if _END in node:
            return False
        node[_END] = True
        self._size += 1
        return True

    def _find(self, prefix):
        node = self._root
        for ch in prefix:
            node = node.get(ch)
            if node is None:
                return None
        return node

    def contains(self, word):
        return self._find(word) is not None

    def starts_with(self, prefix):
        node = self._find(prefix)
        found = []
        stack = [(node, prefix)] if node is not None else []
        while stack:
            node, text = stack.pop()
            for key, child in node.items():
                if key is _END:
                    found.append(text)
                else:
                    stack.append((child, text + key))
        return sorted(found)

    def remove(self, word):
        path = [self._root]
        for ch in word:
            nxt = path[-1].get(ch)
            if nxt is None:
                return False
            path.append(nxt)
        if _END not in path[-1]:
            return False
        del path[-1][_END]
        self._size -= 1
        for depth in range(len(word), 0, -1):
            if _END in path[depth]:
                break
            del path[depth - 1][word[depth - 1]]
        return True

    def __len__(self):
        return self._size

    def longest_common_prefix(self):
        prefix = []
        node = self._root
        while len(node) == 1 and _END not in node:
            (ch, node), = node.items()
            prefix.append(ch)
        return "".join(prefix)
