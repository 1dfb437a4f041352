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

# 3. Runtime: pdftotext for PDFs; frpc for HaRP, for the build platform's
#    architecture (TARGETARCH, set by BuildKit: amd64 or arm64), checked
#    against the release checksums; procps for the health check's pgrep
#    (without it a HaRP install fails with "Container healthcheck failed");
#    curl for the health check.
FROM debian:bookworm-slim
ARG TARGETARCH
ARG FRP_VERSION=0.61.1
ARG FRP_SHA256_AMD64=bff260b68ca7b1461182a46c4f34e9709ba32764eed30a15dd94ac97f50a2c40
ARG FRP_SHA256_ARM64=af6366f2b43920ebfe6235dba6060770399ed1fb18601e5818552bd46a7621f8
RUN set -eu; \
    case "${TARGETARCH:-$(dpkg --print-architecture)}" in \
      amd64) frp_arch=amd64; frp_sum="$FRP_SHA256_AMD64" ;; \
      arm64) frp_arch=arm64; frp_sum="$FRP_SHA256_ARM64" ;; \
      *) echo "no frpc build for architecture ${TARGETARCH:-unknown}" >&2; exit 1 ;; \
    esac; \
    apt-get update; \
    apt-get install -y --no-install-recommends ca-certificates curl poppler-utils procps \
        tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-jpn libheif-examples; \
    curl -fsSL -o /tmp/frp.tar.gz "https://github.com/fatedier/frp/releases/download/v${FRP_VERSION}/frp_${FRP_VERSION}_linux_${frp_arch}.tar.gz"; \
    echo "${frp_sum}  /tmp/frp.tar.gz" | sha256sum -c -; \
    tar -xzf /tmp/frp.tar.gz -C /usr/local/bin --strip-components=1 "frp_${FRP_VERSION}_linux_${frp_arch}/frpc"; \
    rm -f /tmp/frp.tar.gz; \
    rm -rf /var/lib/apt/lists/*; \
    useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin app; \
    mkdir -p /nc_app_hybrid_search_data; \
    chown app /nc_app_hybrid_search_data
COPY --from=build /out/hybridsearch /usr/local/bin/hybridsearch
COPY --chmod=755 docker/start.sh /usr/local/bin/start.sh
COPY --chmod=755 docker/healthcheck.sh /usr/local/bin/healthcheck.sh
USER app
ENV APP_PERSISTENT_STORAGE=/nc_app_hybrid_search_data
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/healthcheck.sh"]
ENTRYPOINT ["/usr/local/bin/start.sh"]
