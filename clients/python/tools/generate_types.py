"""Writes svc_handoff/openapi.py: TypedDicts for the contract's shapes, from docs/openapi.json.

The client's request and answer types are generated, never edited by hand, so that they follow the
contract the service serves; a test regenerates them and compares (the drift check). Standard
library only, so it runs wherever Python does (`npm run openapi:write` runs it too).

    python clients/python/tools/generate_types.py           # rewrite the module
    python clients/python/tools/generate_types.py --check   # exit 1 when the module is out of date

What JSON Schema says that a TypedDict cannot (patterns, lengths, if/then/else conditions) is left
out; an if/then/else is typed as either of its branches, an allOf as its members' properties
together (or the union one of them offers).
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from pathlib import Path
from typing import Any

from _generated import write_or_check

HERE = Path(__file__).resolve().parent
CONTRACT = HERE.parents[2] / "docs" / "openapi.json"
MODULE = HERE.parent / "src" / "svc_handoff" / "openapi.py"

Schema = dict[str, Any]
# Shapes inside others that the client names on their own, with where the contract has them.
NAMED = {"ErrorCode": ("components", "schemas", "ErrorEnvelope", "properties", "error", "properties", "code")}
SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", text) if part)


class Generator:
    def __init__(self, document: Schema) -> None:
        self.document = document
        # Each class once, in the order first named: definitions are written before their users
        # only by luck, so every annotation is a string (from __future__ import annotations).
        self.classes: dict[str, str] = {}
        self.aliases: dict[str, str] = {}

    def resolve(self, schema: Schema) -> Schema:
        ref = schema.get("$ref")
        if ref is None:
            return schema
        node: Any = self.document
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return node

    def merged(self, schemas: list[Schema]) -> Schema:
        """allOf of object members: their properties together, the first non-empty schema of each."""
        properties: dict[str, Schema] = {}
        required: list[str] = []
        for member in map(self.resolve, schemas):
            for name, schema in member.get("properties", {}).items():
                if schema or name not in properties:
                    properties[name] = schema
            required += [name for name in member.get("required", []) if name not in required]
        return {"type": "object", "properties": properties, "required": required}

    def refined(self, schema: Schema, patches: list[Schema]) -> Schema:
        """`schema` with each patch's narrower types laid over the properties it already has (a $ref wins)."""
        for patch in patches:
            schema = self.overlay(schema, patch)
        return schema

    def overlay(self, target: Schema, patch: Schema) -> Schema:
        if "$ref" in patch:
            return patch
        resolved = self.resolve(target)
        if "allOf" in resolved:
            resolved = self.merged(resolved["allOf"])
        if "items" in patch and "items" in resolved:
            items = self.overlay(resolved["items"], patch["items"])
            return target if items is resolved["items"] else {**resolved, "items": items}
        properties = resolved.get("properties", {})
        changed = {prop: self.overlay(properties[prop], sub) for prop, sub in patch.get("properties", {}).items() if prop in properties}
        if all(changed[prop] is properties[prop] for prop in changed):
            return target
        return {**resolved, "properties": {**properties, **changed}}

    def annotation(self, schema: Schema, name: str) -> str:
        """The type of a value matching `schema`; an object with properties becomes a class `name`."""
        if "$ref" in schema:
            return schema["$ref"].rsplit("/", 1)[-1]
        if "if" in schema and ("then" in schema or "else" in schema):
            return self.union([schema.get("then", {}), schema.get("else", {})], name)
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return self.union(schema[key], name)
        if "allOf" in schema:
            members = schema["allOf"]
            for index, member in enumerate(members):
                if "if" in member:
                    # The branches, each refined by the members after (Interaction's components).
                    patches = members[index + 1 :]
                    return self.union([self.refined(branch, patches) for branch in (member.get("then", {}), member.get("else", {}))], name)
                if "oneOf" in member or "anyOf" in member:
                    return self.annotation(member, name)
            return self.annotation(self.merged(members), name)
        if "const" in schema:
            return f"Literal[{schema['const']!r}]"
        if "enum" in schema:
            literal = f"Literal[{', '.join(repr(value) for value in schema['enum'])}]"
            return f"Optional[{literal}]" if "null" in as_list(schema.get("type")) else literal
        types = as_list(schema.get("type"))
        if not types:
            return "Any"
        parts = [self.typed(kind, schema, name) for kind in types]
        return parts[0] if len(parts) == 1 else f"Union[{', '.join(parts)}]"

    def typed(self, kind: str, schema: Schema, name: str) -> str:
        if kind == "array":
            return f"list[{self.annotation(schema.get('items', {}), f'{name}Item')}]"
        if kind != "object":
            return SCALARS[kind]
        if schema.get("properties"):
            return self.typed_dict(schema, name)
        extra = schema.get("additionalProperties")
        return f"dict[str, {self.annotation(extra, f'{name}Value')}]" if isinstance(extra, dict) and extra else "dict[str, Any]"

    def union(self, variants: list[Schema], name: str) -> str:
        members: list[str] = []
        for index, variant in enumerate(variants, 1):
            member = self.annotation(variant, f"{name}{tag(self.resolve(variant)) or index}")
            if member not in members:
                members.append(member)
        return members[0] if len(members) == 1 else f"Union[{', '.join(members)}]"

    def typed_dict(self, schema: Schema, name: str) -> str:
        if name in self.classes:
            return name
        # Taken: a property that refers back to it names it again. Its base of required keys, if it
        # gets one, must be written before it.
        self.classes[f"_{name}Required"] = ""
        self.classes[name] = ""
        required = set(schema.get("required", []))
        fields = {prop: self.annotation(sub, f"{name}{pascal(prop)}") for prop, sub in schema["properties"].items()}
        doc = schema.get("description")
        header = [f'    """{one_line(doc)}"""', ""] if doc else []
        must = {prop: kind for prop, kind in fields.items() if prop in required}
        may = {prop: kind for prop, kind in fields.items() if prop not in required}
        if any(not python_name(prop) for prop in may):
            raise SystemExit(f"{name}: an optional property that is not a Python name; teach the generator a functional TypedDict")
        if not may:
            self.classes[name] = typed_dict_of(name, must, header)
        elif not must:
            self.classes[name] = "\n".join([f"class {name}(TypedDict, total=False):", *header, *lines(may)])
        else:
            # Python 3.10 has no Required/NotRequired: the required keys are a base of their own.
            self.classes[f"_{name}Required"] = typed_dict_of(f"_{name}Required", must, [])
            self.classes[name] = "\n".join([f"class {name}(_{name}Required, total=False):", *header, *lines(may)])
        return name

    def named(self, name: str, schema: Schema) -> None:
        annotation = self.annotation(schema, name)
        if annotation != name:
            self.aliases[name] = annotation

    def render(self) -> str:
        for name, path in NAMED.items():
            node: Any = self.document
            for part in path:
                node = node[part]
            self.aliases[name] = self.annotation(node, name)
        for name, schema in self.document["components"]["schemas"].items():
            self.named(name, schema)
        for operations in self.document["paths"].values():
            for operation in operations.values():
                body = operation.get("requestBody", {}).get("content", {}).get("application/json")
                if body:
                    self.named(f"{pascal(operation['operationId'])}Request", body["schema"])
                for answer in operation.get("responses", {}).values():
                    title = answer.get("content", {}).get("application/json", {}).get("schema", {}).get("title")
                    if title:
                        self.named(pascal(title), answer["content"]["application/json"]["schema"])
        blocks = [text for text in self.classes.values() if text]
        blocks += [f"{name} = {annotation}" for name, annotation in self.aliases.items()]
        body = "\n\n\n".join(blocks)
        used = [name for name in ("Any", "Literal", "Optional", "TypedDict", "Union") if re.search(rf"\b{name}\b", body)]
        return "\n".join(
            [
                "# Generated from docs/openapi.json by clients/python/tools/generate_types.py: do not edit by hand.",
                "# Regenerate with `npm run openapi:write` (or that script) after the contract changes.",
                '"""The contract\'s request and answer shapes, as TypedDicts."""',
                "",
                "from __future__ import annotations",
                "",
                f"from typing import {', '.join(used)}",
                "",
                "",
                body,
                "",
            ]
        )


def python_name(prop: str) -> bool:
    return prop.isidentifier() and not keyword.iskeyword(prop)


def lines(fields: dict[str, str]) -> list[str]:
    return [f"    {prop}: {kind}" for prop, kind in fields.items()]


def typed_dict_of(name: str, fields: dict[str, str], header: list[str]) -> str:
    """A TypedDict of required keys: a class, or the functional form when a key is not a Python name ("from")."""
    if all(map(python_name, fields)):
        return "\n".join([f"class {name}(TypedDict):", *header, *lines(fields)])
    entries = "".join(f"\n    {prop!r}: {json.dumps(kind)}," for prop, kind in fields.items())
    return f"{name} = TypedDict({name!r}, {{{entries}\n}})"


def as_list(value: Any) -> list[str]:
    return [] if value is None else value if isinstance(value, list) else [value]


def tag(schema: Schema) -> str:
    """A variant's name from the single value its required `type`, `mode` or `kind` takes, if any."""
    for prop in schema.get("required", []):
        sub = schema.get("properties", {}).get(prop, {})
        values = [sub["const"]] if "const" in sub else sub.get("enum", [])
        if len(values) == 1 and isinstance(values[0], str):
            return pascal(values[0])
    return ""


def one_line(text: str) -> str:
    return " ".join(text.split()).replace('"""', "'''").replace("\\", "\\\\")


def render(contract: Path = CONTRACT) -> str:
    return Generator(json.loads(contract.read_text(encoding="utf-8"))).render()


def main(argv: list[str]) -> int:
    source = render()
    return write_or_check(MODULE, CONTRACT, source, Path(__file__).name, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
