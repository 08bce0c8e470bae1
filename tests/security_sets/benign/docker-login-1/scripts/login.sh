#!/bin/bash
echo "$REGISTRY_TOKEN" | docker login ghcr.io -u "$REGISTRY_USER" --password-stdin
jq '.auths | keys' ~/.docker/config.json
