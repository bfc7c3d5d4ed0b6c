"""Task specs: the JSON Schema, loading and validation."""
