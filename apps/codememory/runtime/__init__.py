"""Running codememory's embedded stack: the local nats-server and the paths under the home."""
