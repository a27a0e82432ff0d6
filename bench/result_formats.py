"""Sizes of a 5,000-row answer in each format, plain and compressed, as the service sends them.

Runs the service in-process (open access, the demo layer on DuckDB, SMQ_MAX_ROWS=5000) and asks for one
SMQ that returns 5,000 rows (one per order: id, date, status, count) as JSON, CSV, Arrow and NDJSON, each
without compression, with gzip and with br. Prints bytes on the wire, the compression ratio and the
median time of a request (in-process, so no network: the cost of encoding and compressing).

    .venv/bin/python -m bench.result_formats [--rows 5000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
import zlib

import brotli

warnings.filterwarnings("ignore", message=".*httpx2.*")

from fastapi.testclient import TestClient  # noqa: E402

from engine import load_layers  # noqa: E402
from engine.facade import default_models_dir  # noqa: E402
from service.app import create_app  # noqa: E402
from service.columns import smq_columns  # noqa: E402
from service.settings import Settings  # noqa: E402

SMQ = {"metrics": ["OrdersModel__orderCount"],
       "group_by": ["OrdersModel__orderId", "OrdersModel__orderDate", "OrdersModel__status"],
       "order_by": ["OrdersModel__orderId"]}


def _wire(client: TestClient, rows: int, fmt: str, encoding: str) -> tuple[int, float]:
    """(bytes as sent, seconds) of one request."""
    started = time.perf_counter()
    with client.stream("POST", "/v1/databases/shop/query", params={"format": fmt},
                       json={"smq": SMQ, "limit": rows}, headers={"Accept-Encoding": encoding}) as response:
        assert response.status_code == 200, response.read()
        size = sum(len(chunk) for chunk in response.iter_raw())
    return size, time.perf_counter() - started


def typing_cost_us(answer: dict, repeat: int = 2000) -> tuple[float, float]:
    """Microseconds to type an answer's columns (`fields`): (a new SMQ, a repeated one). A new SMQ resolves its
    elements (a distinct `hidden` set per call keeps the element cache cold); a repeated one hits the cache."""
    layer = load_layers(default_models_dir())["shop"]
    types = [f["db_type"] for f in answer["fields"]]
    started = time.perf_counter()
    for i in range(repeat):
        smq_columns(layer, SMQ, frozenset({f"cold{i}"}), answer["columns"], types, layer.dialect)
    cold = (time.perf_counter() - started) / repeat * 1e6
    started = time.perf_counter()
    for _ in range(repeat):
        smq_columns(layer, SMQ, frozenset(), answer["columns"], types, layer.dialect)
    return cold, (time.perf_counter() - started) / repeat * 1e6


def encoder_cpu(body: bytes, repeat: int = 20) -> None:
    """CPU time (median, process time: less disturbed by other load than wall time) and ratio per encoder level."""
    encoders = {f"gzip {level}": (lambda level=level: _gzip(body, level)) for level in (1, 4, 6)}
    encoders.update({f"br {q}": (lambda q=q: brotli.compress(body, quality=q)) for q in (4, 5)})
    for name, encode in encoders.items():
        times = []
        for _ in range(repeat):
            started = time.process_time()
            out = encode()
            times.append(time.process_time() - started)
        print(f"  {name:<7} {len(body) / len(out):>5.1f}x  {statistics.median(times) * 1000:>6.2f} ms of CPU")


def _gzip(body: bytes, level: int) -> bytes:
    packer = zlib.compressobj(level, zlib.DEFLATED, 31)
    return packer.compress(body) + packer.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    app = create_app(Settings(models_dir=default_models_dir(), open_access=True, max_rows=args.rows))
    with TestClient(app) as client:
        answer = client.post("/v1/databases/shop/query", json={"smq": SMQ, "limit": args.rows}).json()
        count = answer["row_count"]
        cold, warm = typing_cost_us(answer)
        print(f"typing the columns (fields): {cold:.0f} us for a new SMQ, {warm:.0f} us for a repeated one")
        print(f"{count:,} rows x {len(SMQ['group_by']) + len(SMQ['metrics'])} columns; median of {args.repeat} requests")
        print(f"compressing the {len(client.post('/v1/databases/shop/query', json={'smq': SMQ, 'limit': args.rows}).content):,}"
              " bytes of JSON:")
        encoder_cpu(client.post("/v1/databases/shop/query", json={"smq": SMQ, "limit": args.rows}).content)
        print(f"{'format':<8} {'encoding':<9} {'bytes':>10} {'ratio':>7} {'ms':>8}")
        for fmt in ("json", "csv", "arrow", "ndjson"):
            plain = None
            for encoding in ("identity", "gzip", "br"):
                runs = [_wire(client, args.rows, fmt, encoding) for _ in range(args.repeat)]
                size = runs[0][0]
                plain = plain or size
                ms = statistics.median(t for _, t in runs) * 1000
                print(f"{fmt:<8} {encoding:<9} {size:>10,} {plain / size:>6.1f}x {ms:>8.1f}")


if __name__ == "__main__":
    main()
