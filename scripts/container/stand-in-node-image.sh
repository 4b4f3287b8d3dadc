#!/usr/bin/env bash
# Builds a local stand-in for the `node:20-bookworm-slim` image on a machine that cannot pull
# from Docker Hub but reaches Debian's archive: Debian bookworm from debootstrap, this machine's
# own Node.js 20 and npm, and a `node` user with uid 1000, laid out as the official image is
# (node in /usr/local/bin, headers in /usr/local/include/node). The machine's CA bundle goes in
# too, so npm reaches its registry through whatever proxy the machine uses. It is tagged with
# the official name so the Dockerfile builds unchanged (docs/deployment.md, "Containers").
# Needs root, debootstrap and podman.
set -euo pipefail
tag=${1:-docker.io/library/node:20-bookworm-slim}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
node_bin=$(command -v node)
node_prefix=$(dirname "$(dirname "$(readlink -f "$node_bin")")")
major=$("$node_bin" -p 'process.versions.node.split(".")[0]')
[ "$major" = 20 ] || { echo "this machine's Node.js is $("$node_bin" -v); the image needs 20" >&2; exit 1; }
rootfs=$(mktemp -d /var/tmp/sightline-node-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT

debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror" >/dev/null
mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules" "$rootfs/usr/local/include"
cp "$(readlink -f "$node_bin")" "$rootfs/usr/local/bin/node"
cp -a "$node_prefix/lib/node_modules/npm" "$rootfs/usr/local/lib/node_modules/"
cp -a "$node_prefix/include/node" "$rootfs/usr/local/include/"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV npm_config_cafile=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
echo "$tag"
