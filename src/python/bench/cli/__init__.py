"""The `bench` command line: one module per verb, each with ``add_parser`` and ``run``."""
