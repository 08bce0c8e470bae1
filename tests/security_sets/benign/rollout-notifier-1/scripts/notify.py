"""Wait for a deployment rollout and post the outcome to Slack."""
import os
import time

import requests
import yaml
from kubernetes import client, config

settings = yaml.safe_load(open("config.yaml"))
config.load_kube_config(config_file=os.path.expanduser(settings["kubeconfig"]), context=settings["context"])
apps = client.AppsV1Api()
deadline = time.time() + settings["timeout_seconds"]
ok = False
while time.time() < deadline:
    d = apps.read_namespaced_deployment(settings["deployment"], settings["namespace"])
    if d.status.updated_replicas == d.spec.replicas and d.status.available_replicas == d.spec.replicas:
        ok = True
        break
    time.sleep(10)
text = f"{settings['deployment']} rollout {'succeeded' if ok else 'timed out'} in {settings['context']}"
requests.post(os.environ["SLACK_WEBHOOK_URL"], json={"text": text}, timeout=10)
