"""The projector service."""
