"""Pants support for loopcontrolbench: task and image target types, and the cached `certify` goal."""
