"""One attempt at a task: the prompt shown to a model and the edits it returns, parsed and applied."""
