"""The consolidate service: cycles that merge restatements, mark superseded memories, decay what
nobody uses, derive lessons and summaries from sessions, and link memories, each result an event."""
