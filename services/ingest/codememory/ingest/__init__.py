"""The ingest service."""
