# lexroute images. Two targets from one build:
#
#   server (the default): authoritative DNS for LEX zones on 53/udp and 53/tcp
#     docker build -t lexroute .
#     docker run --rm -p 53:53/udp -p 53:53/tcp \
#       -v "$PWD/zones:/zones:ro" -v "$PWD/config:/etc/lexroute:ro" lexroute
#
#   resolver: the jurisdiction resolver (THTTP, RFC 2169) on 8080/tcp
#     docker build --target resolver -t lexroute-resolver .
#     docker run --rm -p 8080:8080 -v lexroute-data:/data lexroute-resolver
#
# The server reads zones from /zones (mount your own; the sample zones are
# built in) and /etc/lexroute/server.docker.json (mount a directory holding
# your own file of that name, or pass --config). It listens on 0.0.0.0:53 and
# [::]:53, one socket each, so IPv6 clients are answered where the container
# has IPv6 (docker run --network with IPv6 enabled); remove "[::]:53" from the
# file on a host without IPv6 at all. SIGHUP reloads the zones (docker kill -s
# HUP <container>); SIGTERM (docker stop) shuts down cleanly.
#
# The resolver serves the SQLite catalogue in the /data volume
# (/data/catalogue.sqlite), which must exist (append --sample to the command
# to try the sample rows instead); fill it with
#   docker run --rm -v lexroute-data:/data -v "$PWD:/in:ro" lexroute-resolver \
#     catalogue import /in/rows.jsonl --catalogue /data/catalogue.sqlite
# It listens on [::]:8080 (one dual-stack socket: IPv4 and IPv6).
#
# Both images run as the unprivileged user lexroute and have a HEALTHCHECK
# (docker/healthcheck.mjs: a DNS query over UDP, or GET /health).

# The Node version the project pins (package.json devDependencies "node").
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS base
RUN groupadd --system lexroute \
 && useradd --system --gid lexroute --no-create-home --home-dir /nonexistent lexroute
WORKDIR /opt/lexroute
COPY package.json package-lock.json ./
# Runtime dependencies only; the image's Node 24 runs the TypeScript sources directly.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY src ./src
COPY docker/healthcheck.mjs ./docker/healthcheck.mjs
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/opt/lexroute/bin/lexroute.js"]

FROM base AS resolver
COPY data/sample-catalogue.jsonl ./data/sample-catalogue.jsonl
COPY config/resolver.docker.json /etc/lexroute/resolver.docker.json
RUN mkdir /data && chown lexroute:lexroute /data
USER lexroute
EXPOSE 8080/tcp
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "/opt/lexroute/docker/healthcheck.mjs", "http", "http://127.0.0.1:8080/health"]
CMD ["resolver", "--config", "/etc/lexroute/resolver.docker.json"]

FROM base AS server
# setcap lets the unprivileged user bind port 53 (CAP_NET_BIND_SERVICE on the node binary only).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libcap2-bin \
 && setcap cap_net_bind_service=+ep "$(readlink -f /usr/local/bin/node)" \
 && apt-get purge -y libcap2-bin && apt-get autoremove -y && rm -rf /var/lib/apt/lists/*
COPY zones /zones
COPY config/server.docker.json /etc/lexroute/server.docker.json
USER lexroute
EXPOSE 53/udp 53/tcp
VOLUME ["/zones", "/etc/lexroute"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "/opt/lexroute/docker/healthcheck.mjs", "dns", "127.0.0.1", "53"]
CMD ["serve", "--config", "/etc/lexroute/server.docker.json"]
