"""Running untrusted code: the Sandbox protocol, its registry, the bwrap and docker backends, and the one
conformance + attack suite every backend must pass. Backends are imported lazily via ``registry``."""
