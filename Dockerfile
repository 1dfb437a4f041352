# syntax=docker/dockerfile:1
# Hybrid Search ExApp image: build the frontend, build the Go binary, then a
# small runtime image running as a non-root user.

# 1. Frontend. frontend/dist is committed; when frontend/package.json exists
#    the Vite build regenerates dist/ here.
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/ ./
RUN if [ -f package.json ]; then (npm ci || npm install --no-save) && npm run build; fi

# 2. Go binary (pure Go, no cgo).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=frontend /src/frontend/dist ./frontend/dist
ARG VERSION=0.1.0
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.Version=${VERSION}" -o /out/hybridsearch ./cmd/hybridsearch

# 3. Runtime: pdftotext for PDFs, frpc for HaRP, curl for the health check.
FROM debian:bookworm-slim
ARG FRP_VERSION=0.61.1
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl poppler-utils \
 && curl -fsSL "https://github.com/fatedier/frp/releases/download/v${FRP_VERSION}/frp_${FRP_VERSION}_linux_amd64.tar.gz" \
    | tar -xz -C /usr/local/bin --strip-components=1 "frp_${FRP_VERSION}_linux_amd64/frpc" \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin app \
 && mkdir -p /nc_app_hybrid_search_data \
 && chown app /nc_app_hybrid_search_data
COPY --from=build /out/hybridsearch /usr/local/bin/hybridsearch
COPY docker/start.sh /usr/local/bin/start.sh
USER app
ENV APP_PERSISTENT_STORAGE=/nc_app_hybrid_search_data
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD if [ -n "$HP_SHARED_KEY" ]; then \
        curl -fsS --unix-socket "${HP_EXAPP_SOCK:-/tmp/exapp.sock}" http://localhost/heartbeat && pgrep frpc >/dev/null; \
      else \
        curl -fsS "http://${APP_HOST:-127.0.0.1}:${APP_PORT}/heartbeat"; \
      fi || exit 1
ENTRYPOINT ["/usr/local/bin/start.sh"]
