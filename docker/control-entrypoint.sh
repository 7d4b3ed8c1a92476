#!/bin/sh
# Generates the cluster's key into the shared keys volume (the nodes accept
# it), then stays up for `docker exec ... locksmith run ...`.
set -e
if [ ! -s /keys/id_ed25519 ]; then
  ssh-keygen -q -t ed25519 -N '' -C locksmith-control -f /keys/id_ed25519
  cp /keys/id_ed25519.pub /keys/authorized_keys.tmp
  mv /keys/authorized_keys.tmp /keys/authorized_keys
fi
printf 'n1\nn2\nn3\nn4\nn5\n' > /keys/nodes
exec sleep infinity
