"""The OpenAPI document is good enough to code against: TypeScript types generated from it by the real
openapi-typescript (npm, from the committed lockfile) type-check a small client (ts_client/client.ts) with
`tsc --noEmit`. The client reads typed result columns and problems; its `@ts-expect-error` lines fail the
check if the schema regresses to `any` or a free-form object."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.service.conftest import node_client

CLIENT = Path(__file__).parent / "ts_client"


def _bin(folder: Path, name: str) -> str:
    return str(folder / "node_modules" / ".bin" / name)


def test_generated_typescript_client_type_checks(client, tmp_path) -> None:
    folder = node_client(CLIENT, ("openapi-typescript", "typescript"), "the TypeScript client test")
    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(client.get("/openapi.json").json()))
    generated = folder / "generated"
    generated.mkdir(exist_ok=True)
    done = subprocess.run([_bin(folder, "openapi-typescript"), str(document), "-o", str(generated / "schema.d.ts")],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr + done.stdout
    checked = subprocess.run([_bin(folder, "tsc"), "--noEmit", "-p", "."], cwd=folder, capture_output=True, text=True,
                             timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_free_form_column_schema_fails_the_check(client, tmp_path) -> None:
    """The check can fail: with `fields` items made free-form, the client's expectations no longer hold."""
    folder = node_client(CLIENT, ("openapi-typescript", "typescript"), "the TypeScript client test")
    doc = client.get("/openapi.json").json()
    doc["components"]["schemas"]["ResultColumn"] = {"type": "object", "additionalProperties": True}
    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(doc))
    broken = tmp_path / "ts"
    broken.mkdir()
    (broken / "generated").mkdir()
    shutil.copy(folder / "client.ts", broken / "client.ts")
    shutil.copy(folder / "tsconfig.json", broken / "tsconfig.json")
    (broken / "node_modules").symlink_to(folder / "node_modules")
    done = subprocess.run([_bin(folder, "openapi-typescript"), str(document), "-o", str(broken / "generated" / "schema.d.ts")],
                          cwd=broken, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    checked = subprocess.run([_bin(folder, "tsc"), "--noEmit", "-p", "."], cwd=broken, capture_output=True, text=True,
                             timeout=300)
    assert checked.returncode != 0 and "client.ts" in checked.stdout, checked.stdout
