#!/usr/bin/env bash
set -euo pipefail
# k3s server with the bundled Traefik switched off (the lab uses its own ingress).
curl -sfL https://get.k3s.io | INSTALL_K3S_EXEC="server --disable traefik --write-kubeconfig-mode 644" sh -

for i in $(seq 1 60); do
  if sudo k3s kubectl get nodes 2>/dev/null | grep -q ' Ready '; then
    break
  fi
  sleep 2
done
sudo k3s kubectl get nodes
echo "Join token for agents:"
sudo cat /var/lib/rancher/k3s/server/node-token
