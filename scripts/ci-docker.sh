#!/usr/bin/env bash
# Makes a Docker engine and a local base image available for the container
# tests (idempotent; every step is skipped when its result is already there):
#   1. Debian's docker.io, docker-compose (v1) and debootstrap, when missing;
#   2. dockerd (root, overlay2), when no engine answers `docker info`;
#   3. the base image $FRAMEWORK_BASE_IMAGE (default framework-base:bookworm-node20):
#      `debootstrap --variant=minbase bookworm` from Debian's mirror, the host's
#      Node 20 (and npm) copied in, the host's CA bundle given to Node, npm and
#      apt, then `docker import`. The root filesystem tarball is cached in
#      $FRAMEWORK_CI_CACHE (default /var/cache/framework-ci), so a new engine
#      imports it again in seconds instead of debootstrapping.
# Prints `FRAMEWORK_BASE_IMAGE=<name>` last, for the caller to export.
set -euo pipefail

CACHE="${FRAMEWORK_CI_CACHE:-/var/cache/framework-ci}"
IMAGE="${FRAMEWORK_BASE_IMAGE:-framework-base:bookworm-node20}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
mkdir -p "$CACHE"
log() { echo "ci-docker: $*" >&2; }

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || need+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if ((${#need[@]} > 0)); then
  log "installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

engine_up() { docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; }
if ! engine_up; then
  log "starting dockerd (log: $CACHE/dockerd.log)"
  nohup dockerd --storage-driver=overlay2 >"$CACHE/dockerd.log" 2>&1 &
  for _ in $(seq 1 120); do engine_up && break; sleep 0.5; done
  engine_up || { log "dockerd did not come up; see $CACHE/dockerd.log"; tail -20 "$CACHE/dockerd.log" >&2; exit 1; }
fi

if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  tarball="$CACHE/bookworm-minbase-node$(node -p 'process.versions.node').tar"
  if [[ ! -s "$tarball" ]]; then
    rootfs="$CACHE/rootfs.tmp"
    rm -rf "$rootfs"
    log "debootstrap --variant=minbase bookworm from $MIRROR (a few minutes, once)"
    debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
      { tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
    node_bin="$(readlink -f "$(command -v node)")"
    npm_dir="$(dirname "$(readlink -f "$(command -v npm)")")/.."
    install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
    mkdir -p "$rootfs/usr/local/lib/node_modules"
    cp -a "$(readlink -f "$npm_dir")" "$rootfs/usr/local/lib/node_modules/npm"
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
    # The host's CA bundle: the registries these machines reach are behind it.
    mkdir -p "$rootfs/etc/ssl/certs"
    cp "$CA_BUNDLE" "$rootfs/etc/ssl/certs/ca-certificates.crt"
    printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nfund=false\naudit=false\nupdate-notifier=false\n' >"$rootfs/usr/local/etc/npmrc"
    # The node user of the registry's node images (uid 1000).
    chroot "$rootfs" /usr/sbin/groupadd --gid 1000 node
    chroot "$rootfs" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
    chroot "$rootfs" /usr/local/bin/node --version >/dev/null
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  fi
  log "importing $tarball as $IMAGE"
  docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_EXTRA_CA_CERTS=$CA_BUNDLE" \
    --change "ENV SSL_CERT_FILE=$CA_BUNDLE" \
    --change 'CMD ["node"]' \
    "$tarball" "$IMAGE" >/dev/null
fi
echo "FRAMEWORK_BASE_IMAGE=$IMAGE"
