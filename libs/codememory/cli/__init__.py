"""The ``codememory`` command line."""
