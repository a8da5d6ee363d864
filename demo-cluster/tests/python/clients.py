"""The official Python client on what smoke.py does not cover: python3 clients.py URL CHECK

Each CHECK is one behaviour; the Rust test runs each as its own test. Exits non-zero with the
failed assertion on a mismatch."""
import sys
import time

from kubernetes import client, watch

cfg = client.Configuration()
cfg.host = sys.argv[1]
api = client.ApiClient(cfg)
core = client.CoreV1Api(api)
PATIENCE = 60  # seconds: an outer bound, never a synchronisation


def configmap(name, labels=None):
    return {"metadata": {"name": name, "labels": labels or {}}, "data": {"k": "v"}}


def expired_watch_and_bookmarks():
    # Enough writes to push the first resourceVersion out of the (100-event) watch cache.
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    for i in range(150):
        core.create_namespaced_config_map("default", configmap(f"churn-{i}"))
    # The server answers 200 and then an ERROR event (a 410 Expired Status), which the client
    # turns into ApiException; with timeout_seconds it does not retry first.
    try:
        events = list(watch.Watch().stream(core.list_namespaced_config_map, "default",
                                           resource_version=rv, timeout_seconds=5))
        raise AssertionError(f"resuming from an evicted version must fail, got {len(events)} events")
    except client.ApiException as e:
        assert e.status == 410, e
        assert e.reason.startswith(f"Expired: too old resource version: {rv} ("), e.reason
    # Without timeout_seconds it retries once from the same version, then gives up the same
    # way (_request_timeout, a client-side socket timeout, only bounds a hang).
    try:
        for event in watch.Watch().stream(core.list_namespaced_config_map, "default",
                                          resource_version=rv, _request_timeout=PATIENCE):
            raise AssertionError(f"no event can come from an evicted version: {event}")
    except client.ApiException as e:
        assert e.status == 410 and e.reason.startswith("Expired: "), e
    # Bookmarks: asked for, they arrive (the server sends them periodically and at the end
    # of a streaming list).
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    seen, bookmark = [], None
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, "default", resource_version=rv,
                          allow_watch_bookmarks=True, timeout_seconds=PATIENCE):
        seen.append(event["type"])
        if event["type"] == "BOOKMARK":
            bookmark = event["raw_object"]
            w.stop()
    assert seen == ["BOOKMARK"], seen  # nothing changed since the list
    assert bookmark["kind"] == "ConfigMap", bookmark
    assert int(bookmark["metadata"]["resourceVersion"]) >= int(rv), (bookmark, rv)
    assert w.resource_version == bookmark["metadata"]["resourceVersion"]


def paging_and_selectors():
    for i in range(130):
        core.create_namespaced_config_map(
            "default", configmap(f"page-{i:03}", {"tier": "db" if i % 2 else "web", "n": str(i)}))
    names, token, pages = [], None, 0
    while True:
        page = core.list_namespaced_config_map("default", limit=50, _continue=token)
        pages += 1
        names += [item.metadata.name for item in page.items]
        token = page.metadata._continue
        if not token:
            break
    assert pages == 3, pages
    assert len(names) == len(set(names)) == 130, len(names)
    web = core.list_namespaced_config_map("default", label_selector="tier=web").items
    assert len(web) == 65 and all(c.metadata.labels["tier"] == "web" for c in web)
    some = core.list_namespaced_config_map("default", label_selector="tier in (db),n notin (1,3)").items
    assert len(some) == 63, len(some)
    named = core.list_namespaced_config_map("default", field_selector="metadata.name=page-007").items
    assert [c.metadata.name for c in named] == ["page-007"]
    try:
        core.list_namespaced_config_map("default", field_selector="data.k=v")
        raise AssertionError("an unsupported field selector must be rejected")
    except client.ApiException as e:
        assert e.status == 400, e


def server_side_apply():
    body = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "applied", "namespace": "default"}, "data": {"owner": "first"}}
    first = core.patch_namespaced_config_map("applied", "default", body, field_manager="first",
                                             _content_type="application/apply-patch+yaml")
    assert first.data == {"owner": "first"}
    managers = [m.manager for m in first.metadata.managed_fields]
    assert "first" in managers, managers
    body["data"]["owner"] = "second"
    try:
        core.patch_namespaced_config_map("applied", "default", body, field_manager="second",
                                         _content_type="application/apply-patch+yaml")
        raise AssertionError("a conflicting apply must fail without force")
    except client.ApiException as e:
        assert e.status == 409, e
        assert "conflict" in e.body.lower(), e.body
    forced = core.patch_namespaced_config_map("applied", "default", body, field_manager="second",
                                              force=True,
                                              _content_type="application/apply-patch+yaml")
    assert forced.data["owner"] == "second"


def custom_resources():
    ext = client.ApiextensionsV1Api(api)
    ext.create_custom_resource_definition({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.py.example.com"},
        "spec": {"group": "py.example.com", "scope": "Namespaced",
                 "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {"type": "object",
                                          "x-kubernetes-preserve-unknown-fields": True}}}]}})
    # Served once Established: wait for that condition on a watch of the CRD.
    w, established = watch.Watch(), False
    for event in w.stream(ext.list_custom_resource_definition,
                          field_selector="metadata.name=gadgets.py.example.com",
                          timeout_seconds=PATIENCE):
        conditions = event["object"].status.conditions or []
        established = any(c.type == "Established" and c.status == "True" for c in conditions)
        if established:
            w.stop()
    assert established, "the CRD never became Established"
    objects = client.CustomObjectsApi(api)
    assert objects.list_namespaced_custom_object("py.example.com", "v1", "default",
                                                 "gadgets")["items"] == []
    objects.create_namespaced_custom_object("py.example.com", "v1", "default", "gadgets", {
        "apiVersion": "py.example.com/v1", "kind": "Gadget",
        "metadata": {"name": "g1"}, "spec": {"size": 3}})
    listed = objects.list_namespaced_custom_object("py.example.com", "v1", "default", "gadgets")
    assert [i["metadata"]["name"] for i in listed["items"]] == ["g1"], listed
    got = objects.get_namespaced_custom_object("py.example.com", "v1", "default", "gadgets", "g1")
    assert got["spec"]["size"] == 3
    objects.patch_namespaced_custom_object("py.example.com", "v1", "default", "gadgets", "g1",
                                           {"spec": {"size": 4}})
    got = objects.get_namespaced_custom_object("py.example.com", "v1", "default", "gadgets", "g1")
    assert got["spec"]["size"] == 4


def pod_logs():
    core.create_namespaced_pod("default", {"metadata": {"name": "logger"},
                                           "spec": {"containers": [{"name": "web", "image": "nginx"}]}})
    w, running = watch.Watch(), False
    for event in w.stream(core.list_namespaced_pod, "default", field_selector="metadata.name=logger",
                          timeout_seconds=PATIENCE):
        statuses = event["object"].status.container_statuses or []
        running = bool(statuses and statuses[0].state.running)
        if running:
            w.stop()
    assert running, "the pod never ran"
    # A container writes its start-up lines over its first moments, as nginx does, so a
    # client that reads the moment it runs may see only the first ones: read until it is there.
    deadline = time.monotonic() + PATIENCE
    log = core.read_namespaced_pod_log("logger", "default")
    while "Configuration complete; ready for start up" not in log and time.monotonic() < deadline:
        time.sleep(0.1)
        log = core.read_namespaced_pod_log("logger", "default")
    assert "Configuration complete; ready for start up" in log, log
    stamped = core.read_namespaced_pod_log("logger", "default", timestamps=True, tail_lines=1)
    assert len(stamped.strip().splitlines()) == 1 and "Z " in stamped, stamped


CHECKS = {f.__name__: f for f in [expired_watch_and_bookmarks, paging_and_selectors,
                                   server_side_apply, custom_resources, pod_logs]}
CHECKS[sys.argv[2]]()
print(f"python {sys.argv[2]} ok")
