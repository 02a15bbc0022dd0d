"""The OpenAPI schema as served (drf-spectacular), finished so that it says exactly what is served
and strict OpenAPI 3.0 tools and client generators read it right:

* every operation lists the problems any request can meet (a body that is not JSON is 415, an
  Accept the API cannot answer 406, too many requests 429, malformed input 400);
* a nullable field carries its own `type` (OpenAPI 3.0.3: `nullable` means nothing without one):
  a nullable object or enum is `oneOf` its component or null alone, which client generators read
  as one class and an optional field;
* a request's field with a default is optional, and says its default in words (a generator
  reading `default` makes the field required in TypeScript);
* a page's GET is a `..._list` operation.
* a request body's object declares every field it takes (`additionalProperties: false`): the API
  refuses any other (core/api.py `validated`).
"""

from __future__ import annotations

import json

from drf_spectacular import openapi

from core.problems import PROBLEM_CONTENT_TYPE

# The partner's id of its player, as accounts.partners.EXTERNAL_ID_PATTERN accepts it.
EXTERNAL_ID_SCHEMA = {"type": "string", "pattern": "^[A-Za-z0-9_.:@-]{1,128}$"}


class AutoSchema(openapi.AutoSchema):
    def get_operation_id(self) -> str:
        operation_id = super().get_operation_id()
        if self.method == "GET" and operation_id.endswith("_retrieve") and self._answers_a_page():
            operation_id = operation_id.removesuffix("_retrieve") + "_list"
        return operation_id

    def _answers_a_page(self) -> bool:
        responses = self.get_response_serializers()
        if not isinstance(responses, dict):
            return False
        ok = next((shape for key, shape in responses.items() if key == 200 or key == (200, "application/json")), None)
        return getattr(ok, "is_page", False)


def _problem(description: str) -> dict:
    return {
        "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        "description": description,
    }


FRAMEWORK_PROBLEMS = {
    "406": "The Accept header asks for something other than JSON.",
    "429": "Too many requests: wait for Retry-After seconds.",
}


def _add_problems(operation: dict) -> None:
    responses = operation.setdefault("responses", {})
    extra = dict(FRAMEWORK_PROBLEMS)
    if "requestBody" in operation:
        extra["415"] = "The body is not JSON (the API takes application/json only)."
    if "requestBody" in operation or any(p.get("in") == "query" for p in operation.get("parameters", [])):
        extra["400"] = "Malformed or invalid input."
    for status, description in extra.items():
        responses.setdefault(status, _problem(description))


def _resolve(schema: dict, components: dict) -> dict:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _null_only(kind: str) -> dict:
    """The schema of null alone, in strict OpenAPI 3.0.3 (a type, nullable, and null its one value)."""
    return {"type": kind, "nullable": True, "enum": [None]}


def _strict_nullable(schema, components: dict):
    """The same schema, every nullable field in a shape strict OpenAPI 3.0 tools and client
    generators read alike: a nullable reference (an object, an enum) is `oneOf` the referenced
    component or null alone, so generators name one class after the component and make the field
    optional (`None | RoundDecisionEnum`, `WarCards | null`), instead of a class per use."""
    if isinstance(schema, list):
        return [_strict_nullable(item, components) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: _strict_nullable(value, components) for key, value in schema.items()}
    if not schema.get("nullable"):
        return schema
    if list(schema.get("allOf", [])) and len(schema["allOf"]) == 1 and "$ref" in schema["allOf"][0]:
        # {"allOf": [{"$ref": X}], "nullable": true}: X or null.
        reference = schema.pop("allOf")[0]
        schema.pop("nullable")
        schema = {"oneOf": [reference, _null_only(_resolve(reference, components).get("type", "object"))], **schema}
    elif "oneOf" in schema and any(_resolve(option, components).get("enum") == [None] for option in schema["oneOf"]):
        # {"oneOf": [{"$ref": SomeEnum}, {"$ref": NullEnum}], "nullable": true}: the enum or null.
        options = [option for option in schema.pop("oneOf") if _resolve(option, components).get("enum") != [None]]
        kind = next(
            _resolve(option, components)["type"] for option in options if "type" in _resolve(option, components)
        )
        schema.pop("nullable")
        schema = {"oneOf": [*options, _null_only(kind)], **schema}
    return schema


def _defaults_in_words(component: dict) -> None:
    """A request's field with a default: optional, its default said in its description."""
    for field in component.get("properties", {}).values():
        if "default" in field and field.get("readOnly") is not True:
            said = f"Optional: {json.dumps(field.pop('default'))} when left out."
            field["description"] = f"{field.get('description', '').rstrip()} {said}".lstrip()


def _closed(schema: dict, components: dict, seen: set[str]) -> None:
    """A request body's object and the objects of its fields take no field they do not declare."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in seen or name not in components:
            return
        seen.add(name)
        schema = components[name]
    for option in schema.get("allOf", []) + schema.get("oneOf", []) + schema.get("anyOf", []):
        _closed(option, components, seen)
    if schema.get("type") == "object" and "properties" in schema:
        schema.setdefault("additionalProperties", False)
        for field in schema["properties"].values():
            _closed(field, components, seen)


def strict_openapi(result, generator, request, public):
    components = result.get("components", {}).get("schemas", {})
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            _add_problems(operation)
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter.get("name") == "external_id":
                    parameter["schema"] = dict(EXTERNAL_ID_SCHEMA)
            for response in operation.get("responses", {}).values():
                for media in response.get("content", {}).values():
                    media["schema"] = _strict_nullable(media["schema"], components)
            for media in operation.get("requestBody", {}).get("content", {}).values():
                media["schema"] = _strict_nullable(media["schema"], components)
                _closed(media["schema"], components, set())
    for name, schema in list(components.items()):
        components[name] = _strict_nullable(schema, components)
        if name.endswith("Request"):  # COMPONENT_SPLIT_REQUEST: what a client sends
            _defaults_in_words(components[name])
    if "NullEnum" in components and "NullEnum" not in repr(result["paths"]) + repr(
        {k: v for k, v in components.items() if k != "NullEnum"}
    ):
        del components["NullEnum"]
    return result
