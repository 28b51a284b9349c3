# lexroute routing server: authoritative DNS for LEX zones on 53/udp and 53/tcp.
#
#   docker build -t lexroute .
#   docker run --rm -p 53:53/udp -p 53:53/tcp \
#     -v "$PWD/zones:/zones:ro" -v "$PWD/config:/etc/lexroute:ro" lexroute
#
# Zones are read from /zones (mount your own; the sample zones are built in).
# The configuration is /etc/lexroute/server.docker.json (mount a directory
# holding your own file of that name, or pass --config). SIGHUP reloads the
# zones (docker kill -s HUP <container>); SIGTERM (docker stop) shuts down
# cleanly.
FROM node:24-slim

# setcap lets the unprivileged user bind port 53 (CAP_NET_BIND_SERVICE on the node binary only).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libcap2-bin \
 && setcap cap_net_bind_service=+ep "$(readlink -f /usr/local/bin/node)" \
 && apt-get purge -y libcap2-bin && apt-get autoremove -y && rm -rf /var/lib/apt/lists/* \
 && groupadd --system lexroute && useradd --system --gid lexroute --no-create-home --home-dir /nonexistent lexroute

WORKDIR /opt/lexroute
COPY package.json package-lock.json ./
# Runtime dependencies only; the image's Node 24 runs the TypeScript sources directly.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY src ./src
COPY zones /zones
COPY config/server.docker.json /etc/lexroute/server.docker.json

USER lexroute
EXPOSE 53/udp 53/tcp
VOLUME ["/zones", "/etc/lexroute"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/opt/lexroute/bin/lexroute.js"]
CMD ["serve", "--config", "/etc/lexroute/server.docker.json"]
