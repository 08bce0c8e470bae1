#!/bin/bash
echo "$CA_CERT_B64" | base64 -d > /tmp/ca.pem
openssl x509 -in /tmp/ca.pem -noout -subject
