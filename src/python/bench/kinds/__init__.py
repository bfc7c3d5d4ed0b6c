"""The built-in task kinds (``pr``, ``mutation``, ``synthetic``): each one class registered with
:mod:`bench.spec.kind_registry`, loaded by name when a spec of its kind is first met."""
