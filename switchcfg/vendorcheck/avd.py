"""fabricctl's driver of Arista AVD's eos_cli_config_gen (switchcfg/vendorcheck/eos.go).

Reads one JSON object on stdin:

    {"avd": "<dir holding python-avd/pyavd/_eos_cli_config_gen>", "configs": [<structured config>, ...]}

and writes one JSON list on stdout, one entry per config, in order:

    {"errors": ["<path>: <message>", ...], "config": "<EOS CLI rendered by AVD's templates>",
     "printed_undefined": ["<variable a template printed undefined>", ...]}

Each structured configuration is converted and checked the way AVD's schema
tooling does it (convert_types first, then type, min/max, valid_values,
pattern, required, primary_key, unknown keys, items), against the schema
fragments of the keys fabricctl writes, then rendered with AVD's own Jinja2
templates. AVD's templates call a few filters and one test of AVD's Jinja2
plugins (arista.avd.defined, natural_sort, default); this file provides them.
Nothing of AVD is stored here: schemas and templates are read from "avd".
Only the standard library, jinja2 and yaml are used (Debian's python3-jinja2
and python3-yaml).
"""

import json
import re
import sys

import jinja2
import yaml

BASE = "python-avd/pyavd/_eos_cli_config_gen/"
FRAGMENTS = ("qos", "priority_flow_control", "qos_profiles", "ethernet_interfaces")
# In the order of AVD's eos_cli_config_gen output (global QoS, global PFC,
# QoS profiles, then the interfaces).
TEMPLATES = ("eos/qos.j2", "eos/priority-flow-control.j2", "eos/qos-profiles.j2", "eos/ethernet-interfaces.j2")

# Schema keywords that say nothing about validity (documentation and
# defaults), and the ones this driver checks. A keyword outside both, on a
# schema node the data reaches, is an error: a newer AVD would otherwise be
# checked less than it says.
DOC_KEYWORDS = {"description", "default", "display_name", "documentation_options"}
CHECKED_KEYWORDS = {"type", "keys", "items", "required", "min", "max", "valid_values", "pattern",
                    "primary_key", "convert_types", "deprecation", "format"}


# ------------------------------------------------------------------ schema
def kind(value):
    """The AVD schema type name of a decoded JSON value."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    for name, typ in (("int", int), ("float", float), ("str", str), ("dict", dict), ("list", list)):
        if isinstance(value, typ):
            return name
    return type(value).__name__


def is_type(value, want):
    # AVD's type check is isinstance: a bool is also an int.
    return isinstance(value, {"int": int, "str": str, "bool": bool, "dict": dict, "list": list}[want])


def convert(schema, value):
    """convert_types: a value of a listed type becomes the schema's type
    (AVD's table: bool/str -> int, int/str -> bool, bool/int/float -> str);
    one that does not convert stays as it is and fails the type check."""
    want, have = schema.get("type"), kind(value)
    if have == want or have not in schema.get("convert_types", ()):
        return value
    try:
        if want == "int":
            return int(value)
        if want == "str":
            return str(value)
        if want == "bool":
            if have == "int":
                return bool(value)
            return {"true": True, "false": False}[value.strip().lower()]
    except (ValueError, KeyError):
        pass
    return value


def check(schema, value, path, errors):
    """Validates value against schema, appending "<path>: <message>" to
    errors; returns the converted value."""
    if "$ref" in schema:
        errors.append("%s: schema $ref %s is not resolved by this driver" % (path, schema["$ref"]))
        return value
    unknown = set(schema) - DOC_KEYWORDS - CHECKED_KEYWORDS
    if unknown:
        errors.append("%s: schema keyword(s) %s not checked by this driver" % (path, ", ".join(sorted(unknown))))
    dep = schema.get("deprecation")
    if dep:
        errors.append("%s: deprecated in AVD%s (use %s)" % (
            path, " and removed" if dep.get("removed") else "", dep.get("new_key", "another key")))
    value = convert(schema, value)
    want = schema.get("type")
    if want not in ("int", "str", "bool", "dict", "list"):
        errors.append("%s: schema type %r is not checked by this driver" % (path, want))
        return value
    if not is_type(value, want):
        errors.append("%s: %r is a %s, the schema wants a %s" % (path, value, kind(value), want))
        return value
    if want == "int":
        if "min" in schema and value < schema["min"]:
            errors.append("%s: %r is below the minimum %s" % (path, value, schema["min"]))
        if "max" in schema and value > schema["max"]:
            errors.append("%s: %r is above the maximum %s" % (path, value, schema["max"]))
    if want == "str" and "pattern" in schema and re.fullmatch(schema["pattern"], value) is None:
        errors.append("%s: %r does not match the pattern %s" % (path, value, schema["pattern"]))
    if want == "str" and "format" in schema:
        errors.append("%s: format %s is not checked by this driver" % (path, schema["format"]))
    if "valid_values" in schema and value not in schema["valid_values"]:
        errors.append("%s: %r is not one of %s" % (path, value, schema["valid_values"]))
    if want == "dict":
        keys = schema.get("keys", {})
        extra = [k for k in value if k not in keys and not str(k).startswith("_")]
        if extra:
            errors.append("%s: unexpected key(s) %s (the schema has %s)" % (path, ", ".join(extra), ", ".join(sorted(keys))))
        out = dict(value)
        for key, child in keys.items():
            if value.get(key) is None:
                if child.get("required"):
                    errors.append("%s.%s: required" % (path, key))
                continue
            out[key] = check(child, value[key], "%s.%s" % (path, key), errors)
        return out
    if want == "list":
        pk = schema.get("primary_key")
        if pk:
            seen = {}
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    if item.get(pk) is None:
                        errors.append("%s[%d]: primary key %s not set" % (path, i, pk))
                    elif item[pk] in seen:
                        errors.append("%s[%d].%s: %r also in item %d; the primary key must be unique" % (path, i, pk, item[pk], seen[item[pk]]))
                    else:
                        seen[item[pk]] = i
        if "items" in schema:
            return [check(schema["items"], item, "%s[%d]" % (path, i), errors) for i, item in enumerate(value)]
    return value


def load_schema(avd):
    keys = {}
    for name in FRAGMENTS:
        with open("%s/%sschema/schema_fragments/%s.schema.yml" % (avd, BASE, name), encoding="utf-8") as f:
            keys.update(yaml.safe_load(f)["keys"])
    return {"type": "dict", "keys": keys}


# ------------------------------------------------------------------ Jinja2
PRINTED_UNDEFINED = []


class Undefined(jinja2.StrictUndefined):
    """Strict (iterating, comparing or testing it fails), except that
    attributes and items of something undefined are undefined too: AVD's
    templates test `a.b.c is arista.avd.defined` without testing a and a.b
    first. Printing it writes nothing and is recorded (PRINTED_UNDEFINED):
    AVD's own environment fails there, and the caller says which such
    template defects it knows."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        return self

    def __str__(self):
        PRINTED_UNDEFINED.append(self._undefined_name or "?")
        return ""


def missing(value):
    return value is None or isinstance(value, jinja2.Undefined)


def t_defined(value, test_value=None, var_type=None, *_args, **_kwargs):
    """arista.avd.defined: neither undefined nor None; equal to test_value
    and of var_type when they are given."""
    if missing(value):
        return False
    if test_value is not None and value != test_value:
        return False
    if var_type is not None and type(value).__name__ != var_type:
        return False
    return True


def natural_key(value):
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", str(value))]


def f_natural_sort(value, sort_key=None):
    """arista.avd.natural_sort: digits compare as numbers; a dict sorts its
    keys; undefined or None is an empty list."""
    if missing(value):
        return []
    if isinstance(value, dict):
        value = list(value)
    if sort_key is None:
        return sorted(value, key=natural_key)
    return sorted(value, key=lambda item: natural_key(item.get(sort_key) if isinstance(item, dict) else item))


def f_default(value, *defaults):
    """arista.avd.default: the first of value and defaults that is neither
    undefined nor None."""
    for candidate in (value,) + defaults:
        if not missing(candidate):
            return candidate
    return None


def environment(avd):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(avd + "/" + BASE + "j2templates"),
                             undefined=Undefined, trim_blocks=True,
                             extensions=["jinja2.ext.loopcontrols", "jinja2.ext.do"])
    env.tests["arista.avd.defined"] = t_defined
    env.filters["arista.avd.natural_sort"] = f_natural_sort
    env.filters["arista.avd.default"] = f_default
    # Other AVD filters (hide_passwords, range_expand) are left out: a
    # template branch that needs one fails loudly at render time.
    return env


def main():
    req = json.load(sys.stdin)
    schema = load_schema(req["avd"])
    env = environment(req["avd"])
    out = []
    for data in req["configs"]:
        errors = []
        converted = check(schema, data, "structured_config", errors)
        del PRINTED_UNDEFINED[:]
        try:
            text = "".join(env.get_template(t).render(**converted) for t in TEMPLATES)
        except jinja2.TemplateError as e:
            errors.append("rendering with AVD's templates: %s" % e)
            text = ""
        out.append({"errors": errors, "config": text, "printed_undefined": sorted(set(PRINTED_UNDEFINED))})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
