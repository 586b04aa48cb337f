#!/usr/bin/env bash
# Regenerates the test certificate authority and the loopback server certificate it
# signs (for localhost and 127.0.0.1, valid for 100 years). Test material only: the
# keys are public in this repository and trusted nowhere but in the tests.
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 36500 \
    -subj "/CN=holon-tools test CA" -keyout "$work/ca.key" -out ca.pem \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
    -keyout "$work/server.key" -out "$work/server.csr"
openssl x509 -req -in "$work/server.csr" -CA ca.pem -CAkey "$work/ca.key" -CAcreateserial -CAserial "$work/ca.srl" \
    -days 36500 -out server.pem -extfile <(printf '%s\n' \
    "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=serverAuth" "subjectAltName=DNS:localhost,IP:127.0.0.1")
openssl pkcs8 -topk8 -nocrypt -in "$work/server.key" -out server.key
