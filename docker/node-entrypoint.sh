#!/bin/sh
# Waits for the control container's public key, makes host keys, runs sshd.
set -e
i=0
while [ ! -s /keys/authorized_keys ]; do
  i=$((i + 1))
  [ "$i" -le 600 ] || { echo "no /keys/authorized_keys after 60 s" >&2; exit 1; }
  sleep 0.1
done
ssh-keygen -A >/dev/null
exec /usr/sbin/sshd -D -e
