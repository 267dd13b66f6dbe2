"""The library seams: modules that replace or patch a library's internals, each for a measured
reason. Each opens with the library, the names it uses, the version it was checked against and
the figure behind it; UPGRADING.md says what to re-check when a pin moves.
"""
