"""loopcontrolbench: a hermetic, reproducible benchmark for code repair, judged by deterministic tests.

Importing ``bench`` is cheap: providers (docker, openai, matplotlib, llama_cpp) are imported only where used.
"""

__version__ = "0.1.0"
