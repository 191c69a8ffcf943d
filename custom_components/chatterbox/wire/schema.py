"""Describe Home Assistant tools and AI Task structures as JSON schemas."""

from collections.abc import Callable
from typing import Any, Final

from openai.types.chat import ChatCompletionToolParam
from openai.types.shared_params import FunctionDefinition
import probatio

from homeassistant.helpers import llm

# Dropped from every schema node, which only makes the schema more permissive;
# Home Assistant still validates the arguments and reports errors to the model.
# - not: llama.cpp cannot turn it into a grammar and fails the whole request
#   ("Unrecognized schema"); probatio renders NotIn and Exclusive with it.
# - pattern: llama.cpp supports only part of the regular expression syntax and
#   fails the request on the rest, such as \w in the backup location selector.
_DROPPED_KEYWORDS: Final = frozenset({"not", "pattern"})
# Dropped beside type: object, where probatio puts the presence rules of
# Required(Any(...)), Inclusive and Exclusive keys. OpenAI refuses them at the
# top level, and llama.cpp reads an anyOf or oneOf there as a union of schemas
# that only say "required", which it cannot convert.
_DROPPED_OBJECT_KEYWORDS: Final = frozenset(
    {"allOf", "anyOf", "oneOf", "dependentRequired"}
)
# A list parameter with more allowed values than this is sent without them.
MAX_LISTED_VALUES: Final = 10
_SCHEMA_MAPS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions"}
)
_SCHEMA_VALUES: Final = frozenset(
    {"items", "prefixItems", "additionalProperties", "contains"}
    | {"allOf", "anyOf", "oneOf"}
)


def structure_schema(
    structure: probatio.Schema, custom_serializer: Callable[[Any], Any] | None
) -> dict[str, Any]:
    """Describe an AI Task's structure as a JSON schema for response_format."""
    schema = _openapi(structure, custom_serializer)
    schema.setdefault("type", "object")
    return schema


def format_tool(
    tool: llm.Tool, custom_serializer: Callable[[Any], Any] | None
) -> ChatCompletionToolParam:
    """Describe a Home Assistant tool as a chat completions function tool."""
    schema = _openapi(tool.parameters, custom_serializer)
    # Chat templates read parameters.properties, and OpenAI requires an object.
    schema["type"] = "object"
    schema.setdefault("properties", {})
    function = FunctionDefinition(name=tool.name, parameters=schema)
    if tool.description:
        function["description"] = tool.description
    return ChatCompletionToolParam(type="function", function=function)


def without_long_lists(spec: ChatCompletionToolParam) -> ChatCompletionToolParam:
    """Leave out the allowed values of a list parameter that has many of them.

    Small models copy such a list whole into their call (HassTurnOn with
    every one of its device classes): a hundred tokens or more, many seconds
    on a small local model, for an argument that matches nothing and is
    dropped (arguments.py). The parameter stays, as a list of strings; the
    tool still checks the values, and the guard checks calls against the
    full schema.
    """
    parameters: dict[str, Any] = dict(spec["function"].get("parameters") or {})
    properties: dict[str, Any] = parameters.get("properties") or {}
    long = [
        name
        for name, schema in properties.items()
        if isinstance(schema, dict)
        and schema.get("type") == "array"
        and isinstance(items := schema.get("items"), dict)
        and len(items.get("enum") or ()) > MAX_LISTED_VALUES
    ]
    if not long:
        return spec
    shortened = {
        name: {
            **schema,
            "items": {k: v for k, v in schema["items"].items() if k != "enum"},
        }
        if name in long
        else schema
        for name, schema in properties.items()
    }
    function = FunctionDefinition(
        **{**spec["function"], "parameters": {**parameters, "properties": shortened}}
    )
    return ChatCompletionToolParam(type="function", function=function)


def _openapi(
    schema: probatio.Schema, custom_serializer: Callable[[Any], Any] | None
) -> dict[str, Any]:
    """Render a schema as OpenAPI 3.1, without what servers choke on.

    Without a custom serializer, as the MCP and KNX APIs give none, selectors
    are still described: probatio alone cannot render them.
    """
    return _clean_schema(
        probatio.to_openapi(
            schema,
            custom_serializer=custom_serializer or llm.selector_serializer,
            openapi_version="3.1.0",
        )
    )


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of a schema without the keywords servers choke on."""
    is_object = schema.get("type") == "object"
    cleaned: dict[str, Any] = {}
    for keyword, value in schema.items():
        if keyword in _DROPPED_KEYWORDS or (
            is_object and keyword in _DROPPED_OBJECT_KEYWORDS
        ):
            continue
        if keyword in _SCHEMA_MAPS and isinstance(value, dict):
            cleaned[keyword] = {name: _clean_value(sub) for name, sub in value.items()}
        elif keyword in _SCHEMA_VALUES:
            cleaned[keyword] = _clean_value(value)
        else:
            # enum, const, default and examples hold data, not schemas.
            cleaned[keyword] = value
    return cleaned


def _clean_value(value: Any) -> Any:
    """Clean a schema or a list of schemas; leave anything else as it is."""
    if isinstance(value, dict):
        return _clean_schema(value)
    if isinstance(value, list):
        return [_clean_value(item) for item in value]
    return value
