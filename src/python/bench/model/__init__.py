"""Model backends: the protocol (`protocol.py`), the registry (`registry.py`) and one module per provider.

Provider modules import their heavy clients (openai, llama_cpp) lazily, so importing this package is cheap.
"""
