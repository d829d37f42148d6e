"""The event catalogue: every fact codememory records, and the one envelope that carries it.

Import events from here, never from the modules behind it, so that the catalogue stays the single
place that says what can be in the log.
"""

from codememory.events.catalogue import (
    CodeRef,
    CommitRecorded,
    CompactionCheckpointed,
    Event,
    FileChange,
    FileDeleted,
    ImportRef,
    MemoryDeprecated,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
    MemoryScope,
    MemoryStored,
    ObservationRecorded,
    PromptSubmitted,
    SessionEnded,
    SessionStarted,
    SubagentCompleted,
    Symbol,
    SymbolKind,
    SymbolsEmbedded,
    SymbolsExtracted,
    ToolFailed,
    ToolKind,
    ToolObserved,
)
from codememory.events.codec import (
    EventDecodeError,
    UnknownSchemaVersionError,
    decode_envelope,
    encode_envelope,
)
from codememory.events.envelope import SCHEMA_VERSION, Envelope, event_tag, log_subject, new_envelope
from codememory.events.ids import deterministic_id
from codememory.events.log import Appended, EventLog, InMemoryEventLog, LogRecord

__all__ = [
    "SCHEMA_VERSION",
    "Appended",
    "CodeRef",
    "CommitRecorded",
    "CompactionCheckpointed",
    "Envelope",
    "Event",
    "EventDecodeError",
    "EventLog",
    "FileChange",
    "FileDeleted",
    "ImportRef",
    "InMemoryEventLog",
    "LogRecord",
    "MemoryDeprecated",
    "MemoryEmbedded",
    "MemoryForgotten",
    "MemoryRefined",
    "MemoryScope",
    "MemoryStored",
    "ObservationRecorded",
    "PromptSubmitted",
    "SessionEnded",
    "SessionStarted",
    "SubagentCompleted",
    "Symbol",
    "SymbolKind",
    "SymbolsEmbedded",
    "SymbolsExtracted",
    "ToolFailed",
    "ToolKind",
    "ToolObserved",
    "UnknownSchemaVersionError",
    "decode_envelope",
    "deterministic_id",
    "encode_envelope",
    "event_tag",
    "log_subject",
    "new_envelope",
]
