"""The report: statistics, a Markov model of the repair loop, tables, plots, Markdown and HTML.

Entry point: :func:`bench.report.build.build_report`. Nothing here imports matplotlib at module level.
"""
