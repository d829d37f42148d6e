"""The graph tests' fixtures live in graphfeed.py: a unique module name, importable from the tests."""

from graphfeed import feed, shop_feed

__all__ = ["feed", "shop_feed"]
