"""br and gzip for answers when the client accepts them (`Accept-Encoding`), via starlette-compress.

One middleware negotiates both (br preferred, then gzip; zstd off: no extra dependency), which
Starlette's GZipMiddleware stacked with a second br middleware could not do without each one
re-checking the other's work. The problem, CSV, Arrow and NDJSON media types are added to the
compressible ones; NDJSON is flushed per streamed piece, so rows still arrive as they are sent.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette_compress import CompressMiddleware, add_compress_type

MINIMUM_SIZE = 1024  # smaller answers are sent as they are: the headers would outweigh the saving


def install(app: FastAPI) -> None:
    for media in ("application/problem+json", "text/csv", "application/vnd.apache.arrow.stream"):
        add_compress_type(media)
    add_compress_type("application/x-ndjson", streaming=True)
    # levels from bench/result_formats.py (175 KB of JSON): gzip 4 = 8.5x in 2.9 ms of CPU (6: 9.6x in 7 ms), br 4 = 10.7x in 3.7 ms
    app.add_middleware(CompressMiddleware, minimum_size=MINIMUM_SIZE, zstd=False, brotli_quality=4, gzip_level=4)
