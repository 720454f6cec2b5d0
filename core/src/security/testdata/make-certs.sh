#!/usr/bin/env bash
# Regenerates the TLS test certificates (run from this directory; needs openssl). The files are
# committed so tests need no openssl. Keys are test-only.
set -euo pipefail
days=36500
cat > ext-server.cnf <<'X'
subjectAltName=IP:127.0.0.1,DNS:localhost
X
cat > ext-other.cnf <<'X'
subjectAltName=DNS:other.example
X
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days $days -subj "/CN=sluice-test-ca"
server() { # name cn extfile
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days $days ${3:+-extfile "$3"}
  rm "$1.csr"
}
server server localhost ext-server.cnf
server server2 localhost ext-server.cnf
server other-host other.example ext-other.cnf
server client alice ""
# Expired: signed by the CA, valid 2000-01-01 .. 2001-01-01.
mkdir -p ca-db && : > ca-db/index.txt && echo 01 > ca-db/serial
cat > ca.cnf <<'X'
[ca]
default_ca=test
[test]
database=ca-db/index.txt
serial=ca-db/serial
new_certs_dir=ca-db
default_md=sha256
policy=any
copy_extensions=none
[any]
commonName=supplied
X
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout expired.key -out expired.csr -subj "/CN=localhost"
openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem \
  -startdate 20000101000000Z -enddate 20010101000000Z -extfile ext-server.cnf -notext
# Self-signed (no CA knows it).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout self-signed.key -out self-signed.pem \
  -days $days -subj "/CN=localhost" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost"
rm -rf ca-db ca.cnf expired.csr ext-server.cnf ext-other.cnf ca.srl ca.key
