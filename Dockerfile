# Sightline's container image (docs/deployment.md, "Containers").
#   docker build -t sightline .
#   docker run -p 6006:6006 -p 4317:4317 -v sightline-data:/data sightline
# Two stages: the first compiles the TypeScript, the UI and the native SQLite addon with
# the build tools; the second carries only the built workspace and its production modules,
# so compilers never ship. NODE_IMAGE may name a mirror of the same Debian-based image.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles against Node's headers when no prebuilt binary matches;
# nodedir points node-gyp at the headers the Node image ships, so the build needs no download.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
WORKDIR /app
COPY . .
# `npm ci` runs the workspace build (the root package's `prepare`); pruning afterwards drops
# the compilers' and bundlers' modules while keeping the workspace links.
RUN npm ci --no-fund --no-audit && npm prune --omit=dev --no-fund --no-audit

FROM ${NODE_IMAGE}
# MALLOC_ARENA_MAX: as npm start runs the server (docs/deployment.md, "Memory").
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    SERVICE_HOST=0.0.0.0 \
    SERVICE_PORT=6006 \
    SERVICE_GRPC_PORT=4317 \
    SERVICE_WORKING_DIR=/data
WORKDIR /app
# The code belongs to root and is read-only for the server's user; only /data is writable.
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 6006 4317
# /healthz answers while the process serves; /readyz would also fail while the database is away,
# which should not get a container restarted (docs/deployment.md, "Health checks").
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.SERVICE_PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The server drains on SIGTERM within SERVICE_SHUTDOWN_TIMEOUT_SECONDS (docs/deployment.md).
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=8", "packages/cli/bin/sightline.js", "serve"]
