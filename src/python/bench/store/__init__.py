"""Persistence: result records (append-only JSONL) and the content-addressed action cache."""
