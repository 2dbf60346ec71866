"""We test these aspects of the injecting webhook's objects (no cluster):

- the configuration is named after the test namespace, selects only that
  namespace and opted-in pods, fails closed, and trusts the serving
  certificate;
- the certificate names the Service's DNS name;
- the server pod passes the injected command as JSON in INJECT_COMMAND.
"""

from __future__ import annotations

import base64
import json

from cryptography import x509

from conformance.harness.stage import injecting


def test_configuration_selects_the_namespace_and_opted_in_pods():
    conf = injecting._configuration(
        name="ns1.inject.wpc.dev", namespace="ns1", labels={"a": "b"}, ca=b"PEM"
    )
    hook = conf["webhooks"][0]
    assert conf["metadata"] == {"name": "ns1.inject.wpc.dev", "labels": {"a": "b"}}
    assert hook["namespaceSelector"] == {
        "matchLabels": {"kubernetes.io/metadata.name": "ns1"}
    }
    assert hook["objectSelector"] == {"matchLabels": injecting.OPT_IN}
    assert hook["failurePolicy"] == "Fail"
    assert base64.b64decode(hook["clientConfig"]["caBundle"]) == b"PEM"


def test_certificate_names_the_service():
    cert, key = injecting.serving_certificate("wpc-injector.ns1.svc")
    parsed = x509.load_pem_x509_certificate(cert)
    names = parsed.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    assert names.value.get_values_for_type(x509.DNSName) == ["wpc-injector.ns1.svc"]
    assert b"PRIVATE KEY" in key


def test_server_pod_passes_the_command_as_json():
    pod = injecting._server_pod(
        image="img:1", command=["/bin/sh", "-c", "x"], labels={}
    )
    env = {e["name"]: e["value"] for e in pod["spec"]["containers"][0]["env"]}
    assert env == {"INJECT_IMAGE": "img:1", "INJECT_COMMAND": '["/bin/sh", "-c", "x"]'}
    assert json.loads(env["INJECT_COMMAND"]) == ["/bin/sh", "-c", "x"]
