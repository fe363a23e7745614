#!/bin/sh
# Makes throwaway certificates for the wss:// tests in directory $1 (P-256 keys, openssl only):
#   ca.pem            the test CA (the tests pass it as --cacert / trustedCertificates)
#   good.pem/.key     signed by ca.pem for IP 127.0.0.1 and DNS localhost
#   wronghost.pem/.key signed by ca.pem for DNS other.example only
#   expired.pem/.key  signed by ca.pem for 127.0.0.1/localhost, valid only on 2020-01-01
#   selfsigned.pem/.key self-signed for 127.0.0.1/localhost
#   untrusted.pem/.key signed by another CA (not ca.pem) for 127.0.0.1/localhost
set -eu
dir="$1"
mkdir -p "$dir"
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
san_local="subjectAltName=IP:127.0.0.1,DNS:localhost"

key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -subj "/CN=DouyinKit test CA" -days 2 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
key other-ca.key
openssl req -x509 -new -key other-ca.key -out other-ca.pem -subj "/CN=Untrusted test CA" -days 2 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

# sign <name> <ca> <san>
sign() {
    key "$1.key"
    openssl req -new -key "$1.key" -out "$1.csr" -subj "/CN=$1"
    printf '%s\n' "$3" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -out "$1.pem" -days 2 -extfile "$1.ext" 2>/dev/null
}
sign good ca "$san_local"
sign wronghost ca "subjectAltName=DNS:other.example"
sign untrusted other-ca "$san_local"

key selfsigned.key
openssl req -x509 -new -key selfsigned.key -out selfsigned.pem -subj "/CN=127.0.0.1" -days 2 -addext "$san_local"

# Expired: `openssl ca` is the one command of OpenSSL 3.0 that takes explicit dates.
key expired.key
openssl req -new -key expired.key -out expired.csr -subj "/CN=expired"
mkdir -p ca-db
: > ca-db/index.txt
echo 01 > ca-db/serial
cat > ca.cnf <<CNF
[ca]
default_ca = test
[test]
database = ca-db/index.txt
new_certs_dir = ca-db
serial = ca-db/serial
default_md = sha256
policy = any
unique_subject = no
[any]
commonName = supplied
[ext]
$san_local
CNF
openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem \
    -startdate 20200101000000Z -enddate 20200102000000Z -extensions ext 2>/dev/null
echo done
