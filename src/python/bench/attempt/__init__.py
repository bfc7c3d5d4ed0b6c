"""One attempt at a task: the prompt shown to a model and the edits it returns, parsed and applied."""

# The answer formats a model may be asked for (bench.attempt.formats); the first is the default.
EDIT_FORMATS = ("search-replace", "function", "diff")
DEFAULT_EDIT_FORMAT = EDIT_FORMATS[0]
