#!/bin/sh
# A docker host's own key (heat-config `script` hook): the private key
# stays in $key_file (0600, made once); the public key is this
# deployment's output, and heat-k8s seals each service's secrets to it
# (heat_k8s/secrecy/envelope.py), so Heat never holds them in clear.
# key_file and heat_outputs_path come from the hook's environment.
# shellcheck disable=SC2154
set -eu
umask 077
if [ ! -s "$key_file" ]; then
    mkdir -p "$(dirname "$key_file")"
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 \
        -out "$key_file.new" 2>/dev/null
    mv "$key_file.new" "$key_file"
fi
openssl pkey -in "$key_file" -pubout > "${heat_outputs_path}.public_key"
echo "public key of $key_file published"
