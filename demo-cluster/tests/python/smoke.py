"""Smoke test of the official Python client against a demo cluster: python3 smoke.py URL"""
import sys

from kubernetes import client, dynamic, watch

cfg = client.Configuration()
cfg.host = sys.argv[1]
api = client.ApiClient(cfg)

assert client.VersionApi(api).get_code().git_version
core = client.CoreV1Api(api)
assert len(core.list_node().items) == 3
assert client.CoreApi(api).get_api_versions().versions == ["v1"]
assert any(g.name == "apps" for g in client.ApisApi(api).get_api_versions().groups)

cm = core.create_namespaced_config_map("default", {"metadata": {"name": "py"}, "data": {"a": "1"}})
core.patch_namespaced_config_map("py", "default", {"data": {"b": "2"}})
cm.metadata.resource_version = "1"
try:
    core.replace_namespaced_config_map("py", "default", cm)
    raise AssertionError("stale replace must fail")
except client.ApiException as e:
    assert e.status == 409, e

apps = client.AppsV1Api(api)
apps.create_namespaced_deployment("default", {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "pyd"},
    "spec": {"selector": {"matchLabels": {"a": "b"}},
             "template": {"metadata": {"labels": {"a": "b"}},
                          "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
apps.patch_namespaced_deployment_scale("pyd", "default", {"spec": {"replicas": 4}})
assert apps.read_namespaced_deployment("pyd", "default").spec.replicas == 4

rv = core.list_namespaced_config_map("default").metadata.resource_version
core.patch_namespaced_config_map("py", "default", {"data": {"c": "3"}})
events = [(e["type"], e["object"].metadata.name)
          for e in watch.Watch().stream(core.list_namespaced_config_map, "default",
                                        resource_version=rv, timeout_seconds=1)]
assert events == [("MODIFIED", "py")], events

# A watch that ends at its timeout, then resumes from the last resourceVersion it saw: only
# the change made in between arrives.
w = watch.Watch()
first = list(w.stream(core.list_namespaced_config_map, "default", resource_version=rv, timeout_seconds=1))
assert len(first) == 1 and w.resource_version, (first, w.resource_version)
core.patch_namespaced_config_map("py", "default", {"data": {"d": "4"}})
resumed = [(e["type"], e["object"].metadata.name, e["object"].data.get("d"))
           for e in watch.Watch().stream(core.list_namespaced_config_map, "default",
                                         resource_version=w.resource_version, timeout_seconds=1)]
assert resumed == [("MODIFIED", "py", "4")], resumed

dyn = dynamic.DynamicClient(api)
assert dyn.resources.get(api_version="apps/v1", kind="Deployment").name == "deployments"
assert core.delete_namespaced_config_map("py", "default")["status"] == "Success"
core.create_namespaced_pod("default", {"metadata": {"name": "pp"},
                                       "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
assert core.delete_namespaced_pod("pp", "default").kind == "Pod"
print("python smoke ok")
