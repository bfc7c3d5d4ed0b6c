"""Mutation tasks: single-site bugs injected into a released library's source, judged by its own tests."""
