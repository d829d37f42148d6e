"""A ``TermsPool`` worker: reads batches of texts from stdin, writes their sparse vectors to stdout.

Run as ``python -m codememory.lexical.worker K B AVG_LEN LANGUAGE`` (the encoder's settings, so its
vectors equal the caller's). Frames are a 4-byte little-endian length and msgpack: a list of strings
in, a list of ``SparseVec`` out, one answer per request, in order. Ends at the end of its input.
Its collector runs as a replay's does (``collector``): a worker lives for one bulk fold.
"""

from __future__ import annotations

import sys

import msgspec

from codememory.collector import fewer_collections
from codememory.lexical.pool import encode_documents, read_frame, write_frame
from codememory.lexical.sparse import SparseEncoder


def main(argv: list[str]) -> int:
    k, b, avg_len, language = argv
    encoder = SparseEncoder(k=float(k), b=float(b), avg_len=float(avg_len), language=language)
    texts = msgspec.msgpack.Decoder(list[str])
    vectors = msgspec.msgpack.Encoder()
    source, out = sys.stdin.buffer, sys.stdout.buffer
    with fewer_collections():
        while (frame := read_frame(source)) is not None:
            write_frame(out, vectors.encode(encode_documents(encoder, texts.decode(frame))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
