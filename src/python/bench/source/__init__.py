"""Task sources: where a task's code comes from (git clones, authored synthetic tasks, released sdists)."""
