"""Text formatting helpers."""

from textfmt.justify import justify, split_into_lines

__all__ = ["justify", "split_into_lines"]
