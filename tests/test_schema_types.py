"""The viewer's TypeScript types (``extension/src/schema.ts``) against the trace's JSON Schema.

The schema (``passviz/trace/trace.schema.json``) is the one description of the
trace format; every object it describes has an interface in ``schema.ts``
with the same fields, required where the schema requires them and optional
where it does not, and every enum the same members.  A field added to one and
not the other fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "passviz" / "trace" / "trace.schema.json").read_text(encoding="utf-8"))
SCHEMA_TS = (ROOT / "extension" / "src" / "schema.ts").read_text(encoding="utf-8")


def _interfaces(text: str) -> dict[str, dict[str, bool]]:
    """Each ``export interface``'s fields, with whether each is optional."""
    found: dict[str, dict[str, bool]] = {}
    for name, body in re.findall(r"export interface (\w+) \{(.*?)\n\}", text, re.S):
        fields = re.findall(r"^\s+(\w+)(\??):", body, re.M)
        found[name] = {field: optional == "?" for field, optional in fields}
    return found


def _union(text: str, name: str) -> set[str]:
    match = re.search(rf"export type {name} = ([^;]+);", text)
    assert match is not None, f"schema.ts has no type {name}"
    return set(re.findall(r"'([^']+)'", match.group(1)))


def _object(path: str) -> dict[str, Any]:
    node: dict[str, Any] = SCHEMA
    for part in path.split("/"):
        node = node[part]
    return node


def _fields(node: dict[str, Any]) -> dict[str, bool]:
    """Each field and whether it is optional; for a ``oneOf`` (the header's versions), the fields of
    every branch, required where every branch requires them."""
    branches: list[dict[str, Any]] = node.get("oneOf", [node])
    fields: dict[str, bool] = {}
    for branch in branches:
        for field in branch["properties"]:
            fields[field] = fields.get(field, False) or field not in branch.get("required", ())
    return {
        field: optional or any(field not in b["properties"] for b in branches)
        for field, optional in fields.items()
    }


OBJECTS = {
    "ValueInfo": "$defs/value",
    "OpInfo": "$defs/opInfo",
    "OpChange": "$defs/opChange",
    "Delta": "$defs/delta",
    "Placement": "$defs/delta/properties/placed/items",
    "BlockInfo": "$defs/delta/properties/blocks_created/items",
    "Replacement": "$defs/delta/properties/replaced/items",
    "Flag": "$defs/flag",
    "HeaderRecord": "$defs/header",
    "TraceMeta": "$defs/meta",
    "DispatchVocabulary": "$defs/dispatch",
    "ImportInfo": "$defs/imported",
    "StageOutput": "$defs/stageOutput",
    "CompiledKernel": "$defs/compiledKernel",
    "InitialState": "$defs/initial",
    "StepRecord": "$defs/step",
    "EndRecord": "$defs/end",
    "RunRecord": "$defs/run",
    "RunDifference": "$defs/run/properties/differences/items",
}
"""Each interface of schema.ts and the schema object it stands for."""


@pytest.mark.parametrize("interface", sorted(OBJECTS))
def test_interface_has_the_schema_fields(interface: str) -> None:
    assert _interfaces(SCHEMA_TS)[interface] == _fields(_object(OBJECTS[interface]))


def test_every_schema_object_has_an_interface() -> None:
    def objects(node: Any, path: str) -> list[str]:
        if isinstance(node, dict):
            here = [path] if node.get("type") == "object" and "properties" in node else []  # pyright: ignore[reportUnknownMemberType]
            return here + [p for k, v in node.items() for p in objects(v, f"{path}/{k}" if path else k)]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        return []

    records = set(OBJECTS.values())
    # blocks_split / blocks_merged items are written inline in Delta, as their own small shapes.
    inline = {"$defs/delta/properties/blocks_split/items", "$defs/delta/properties/blocks_merged/items"}
    assert set(objects(SCHEMA, "")) - records - inline == set()


def test_enums_have_the_schema_members() -> None:
    assert _union(SCHEMA_TS, "FlagKind") == set(_object("$defs/flag/properties/kind")["enum"])
    assert _union(SCHEMA_TS, "StepKind") == set(_object("$defs/step/properties/kind")["enum"])
    assert _union(SCHEMA_TS, "Verdict") == set(_object("$defs/run/properties/verdict")["enum"])
