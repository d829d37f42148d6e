"""A projection rebuilt on start keeps its place in memory: passing a poison event counts it."""

from codememory.projection.position import InMemoryPosition


def test_skipping_moves_past_and_counts_saving_only_moves_forward() -> None:
    position = InMemoryPosition()
    position.skip(5)
    position.save_position(3)  # never backwards
    assert (position.last_seq, position.poisoned) == (5, 1)
    position.save_position(9)
    assert (position.last_seq, position.poisoned) == (9, 1)
