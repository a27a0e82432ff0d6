"""Write a synthetic semantic layer of N models (a chain of many_to_one joins plus fan-in) for load benchmarks."""

from __future__ import annotations

import argparse
from pathlib import Path


def write_synthetic_layer(root: Path, n_models: int = 1000, name: str = "synthetic") -> Path:
    folder = root / name
    (folder / "models").mkdir(parents=True, exist_ok=True)
    (folder / "database.yml").write_text(
        f"name: {name}\ndescription: {n_models} generated models.\ndialect: duckdb\n"
        "connection: {backend: duckdb, path: none.duckdb}\ntime_spine: {table: spine, column: day}\n"
    )
    joins = ["joins:"]
    for i in range(n_models):
        dims = "\n".join(
            f"  - {{name: attr{j}, type: string, expr: attr_{i}_{j}, description: Attribute {j} of table {i}.}}" for j in range(8)
        )
        measures = "\n".join(
            f"  - {{name: amount{j}, agg: sum, expr: 'amount_{i}_{j} * (1 - COALESCE(discount_{i}_{j}, 0))', description: Amount {j}.}}"
            for j in range(5)
        )
        (folder / "models" / f"m{i:04d}.yml").write_text(
            f"name: Model{i}\ndescription: Generated table number {i}.\ntable: SCHEMA_{i % 7}.TABLE_{i}\nprimary_key: id\n"
            f"dimensions:\n  - {{name: createdAt, type: date, expr: CAST(created_at_{i} AS DATE), description: Creation day.}}\n{dims}\n"
            f"measures:\n  - {{name: rowCount, agg: count, description: Rows.}}\n{measures}\n"
            f"metrics:\n  - {{name: ratio{i}, type: ratio, numerator: Model{i}__amount0, denominator: Model{i}__rowCount}}\n"
        )
        if i:
            parent = (i - 1) // 2
            joins.append(
                f"  - {{from: Model{i}, to: Model{parent}, key: parent{i}, relationship: many_to_one, "
                f"on: {{left: parent_id, right: id}}}}"
            )
    (folder / "joins.yml").write_text("\n".join(joins) + "\n")
    return root


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--models", type=int, default=1000)
    a = ap.parse_args()
    print(write_synthetic_layer(a.out, a.models))
