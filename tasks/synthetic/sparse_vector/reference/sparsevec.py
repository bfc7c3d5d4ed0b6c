"""Sparse vectors that store only non-zero entries."""


class SparseVector:
    __hash__ = None

    def __init__(self, dim, entries=None):
        if dim < 0:
            raise ValueError("dim must not be negative")
        self.dim = dim
        self._data = {}
        for index, value in (entries or {}).items():
            self[index] = value

    def _check(self, index):
        if not 0 <= index < self.dim:
            raise IndexError(index)

    def __getitem__(self, index):
        self._check(index)
        return self._data.get(index, 0)

    def __setitem__(self, index, value):
        self._check(index)
        if value == 0:
            self._data.pop(index, None)
        else:
            self._data[index] = value

    @property
    def nnz(self):
        return len(self._data)

    def items(self):
        return sorted(self._data.items())

    def to_dense(self):
        return [self._data.get(i, 0) for i in range(self.dim)]

    def _same_dim(self, other):
        if self.dim != other.dim:
            raise ValueError(f"dimension mismatch: {self.dim} != {other.dim}")

    def dot(self, other):
        self._same_dim(other)
        small, large = sorted((self._data, other._data), key=len)
        return sum(value * large.get(index, 0) for index, value in small.items())

    def __add__(self, other):
        if not isinstance(other, SparseVector):
            return NotImplemented
        self._same_dim(other)
        result = SparseVector(self.dim, self._data)
        for index, value in other._data.items():
            result[index] = result[index] + value
        return result

    def scale(self, k):
        return SparseVector(self.dim, {i: v * k for i, v in self._data.items()})

    def __eq__(self, other):
        if not isinstance(other, SparseVector):
            return NotImplemented
        return self.dim == other.dim and self._data == other._data
