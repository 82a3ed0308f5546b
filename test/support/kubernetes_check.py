"""Checks Kubernetes objects for the deploy tests, with the real tools.

Reads one JSON request on stdin, prints one JSON answer:
  {"validate": {"files": [...]}}
      every document of every file against the Kubernetes API schemas that
      kubernetes-validate ships (strict: unknown fields fail), for each
      Kubernetes version from 1.32 on: {"versions": [...], "errors": [...], "count": n}.
      A missing schema (an unknown kind or apiVersion) is an error, not a warning.
  {"render": {"chart": dir, "values_files": [...], "namespace": ns, "release": name}}
      Helm's own engine (helm-python-sdk: Helm's Go SDK as a library) renders the
      chart offline with those values files merged in order, and lints it:
      {"manifests": {template: text}, "lint": {...}, "helm": version} or {"error": message}.
"""
import json
import sys

import yaml


def versions():
    from kubernetes_validate.utils import all_versions
    from packaging.version import Version

    return sorted({v for v in all_versions() if Version(v) >= Version("1.32")}, key=Version)


def validate(request):
    from kubernetes_validate.utils import validate as validate_one

    docs = []
    for name in request["files"]:
        with open(name) as f:
            docs += [(name, d) for d in yaml.safe_load_all(f) if d is not None]
    errors = []
    checked = versions()
    for version in checked:
        for name, doc in docs:
            try:
                validate_one(doc, version, strict=True)
            except Exception as e:  # ValidationError, SchemaNotFoundError, ...
                path = ".".join(str(p) for p in getattr(e, "path", []))
                what = getattr(e, "message", None) or str(e)
                errors.append(f"{version} {name} {doc.get('kind')}/{doc.get('metadata', {}).get('name')}: {path}: {what}")
    return {"versions": checked, "errors": errors, "count": len(docs)}


def render(request):
    import helm_python as helm

    values = {}
    for name in request.get("values_files", []):
        with open(name) as f:
            values = merge(values, yaml.safe_load(f) or {})
    try:
        with helm.Chart.load(request["chart"]) as chart:
            manifests = chart.render(values, name=request.get("release", "release"), namespace=request["namespace"])
    except Exception as e:  # HelmRenderError: the template's own message
        return {"error": str(e)}
    lint = helm.lint(request["chart"], values, strict=True, namespace=request["namespace"])
    return {"manifests": manifests, "lint": lint, "helm": helm.helm_sdk_version()}


def merge(base, extra):
    out = dict(base)
    for key, value in extra.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


request = json.load(sys.stdin)
answer = validate(request["validate"]) if "validate" in request else render(request["render"])
json.dump(answer, sys.stdout)
