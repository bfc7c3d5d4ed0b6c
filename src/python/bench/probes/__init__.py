"""The verified tier: probe sets recorded and generated under a task's reference, replayed against a resolved
candidate in a fresh sandbox and compared on the host (docs/ARCHITECTURE.md, "The verified tier")."""
