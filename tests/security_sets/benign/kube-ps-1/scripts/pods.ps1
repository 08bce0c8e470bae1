$config = Join-Path $HOME '.kube/config'
kubectl --kubeconfig $config get pods -o wide
