# Hybrid Search ExApp image: build the panel and the Go binary on the build
# machine's platform (cross-compiled, so an arm64 image needs no emulation
# for them), then a small Debian runtime running as a non-root user.
#
# The version is appinfo/info.xml's <version>: the binary embeds info.xml,
# and scripts/build-image tags the image with it.
#
# Base images are pinned by digest; Dependabot (.github/dependabot.yml)
# proposes new digests. scripts/build-image --unpinned builds a copy of this
# file with the @sha256 pins removed, for machines that use local stand-ins
# of these images (scripts/test-image, see scripts/image-standins).

# 1. The search panel (Vite). npm ci fails when package-lock.json does not
#    match package.json: there is no fallback to npm install.
FROM --platform=$BUILDPLATFORM node:26-bookworm-slim@sha256:367679cf9792759492a486e4aa4b421764d71a9546a6dae8aab81a99eb797b3e AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

# 2. The Go binary (pure Go, no cgo), cross-compiled for the target.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm@sha256:b305420a68d0f229d91eb3b3ed9e519fcf2cf5461da4bef997bf927e8c0bfd2b AS build
ARG TARGETOS
ARG TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=frontend /src/frontend/dist ./frontend/dist
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags "-s -w" -o /out/hybridsearch ./cmd/hybridsearch

# 3. Runtime: pdftotext and tesseract for extraction; frpc for HaRP, for the
#    target architecture, checked against FRP_SHA256_<ARCH>; curl for the
#    health check; tini as PID 1 (it reaps frpc's exited processes, so a
#    dead frpc never lingers as a zombie).
#    FRP_BASE_URL points the download elsewhere (a mirror, or a local
#    server in scripts/test-image) with the checksums passed as build args.
#    /certs/frp belongs to the app user: HaRP installs its FRP client
#    certificates there with "docker exec" as the image's user (no User in
#    the exec), and start.sh turns TLS on once they are there.
#    SSL_CERT_DIR makes the app trust the CAs that AppAPI/HaRP copy into
#    /usr/local/share/ca-certificates (the instance's custom CAs) without
#    update-ca-certificates, which needs root; docker/update-ca-certificates
#    says so when HaRP runs it as the app user.
FROM debian:bookworm-slim@sha256:d5d3f9c23164ea16f31852f95bd5959aad1c5e854332fe00f7b3a20fcc9f635c
ARG TARGETARCH
ARG FRP_VERSION=0.61.1
ARG FRP_BASE_URL=https://github.com/fatedier/frp/releases/download
ARG FRP_SHA256_AMD64=bff260b68ca7b1461182a46c4f34e9709ba32764eed30a15dd94ac97f50a2c40
ARG FRP_SHA256_ARM64=af6366f2b43920ebfe6235dba6060770399ed1fb18601e5818552bd46a7621f8
RUN set -eu; \
    case "${TARGETARCH:-$(dpkg --print-architecture)}" in \
      amd64) frp_arch=amd64; frp_sum="$FRP_SHA256_AMD64" ;; \
      arm64) frp_arch=arm64; frp_sum="$FRP_SHA256_ARM64" ;; \
      *) echo "no frpc build for architecture ${TARGETARCH:-unknown}" >&2; exit 1 ;; \
    esac; \
    apt-get update; \
    apt-get install -y --no-install-recommends ca-certificates curl tini poppler-utils \
        tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-jpn libheif-examples; \
    curl -fsSL -o /tmp/frp.tar.gz "${FRP_BASE_URL}/v${FRP_VERSION}/frp_${FRP_VERSION}_linux_${frp_arch}.tar.gz"; \
    echo "${frp_sum}  /tmp/frp.tar.gz" | sha256sum -c -; \
    tar -xzf /tmp/frp.tar.gz -C /usr/local/bin --strip-components=1 --no-same-owner "frp_${FRP_VERSION}_linux_${frp_arch}/frpc"; \
    rm -f /tmp/frp.tar.gz; \
    rm -rf /var/lib/apt/lists/*; \
    groupadd --system --gid 10001 app; \
    useradd --system --uid 10001 --gid app --home-dir /nonexistent --shell /usr/sbin/nologin app; \
    mkdir -p /nc_app_hybrid_search_data /certs/frp; \
    chown app:app /nc_app_hybrid_search_data /certs/frp; \
    chmod 0700 /certs/frp
COPY --from=build /out/hybridsearch /usr/local/bin/hybridsearch
COPY --chmod=755 docker/start.sh /usr/local/bin/start.sh
COPY --chmod=755 docker/healthcheck.sh /usr/local/bin/healthcheck.sh
COPY --chmod=755 docker/update-ca-certificates /usr/local/bin/update-ca-certificates
USER app
ENV APP_PERSISTENT_STORAGE=/nc_app_hybrid_search_data \
    SSL_CERT_DIR=/usr/local/share/ca-certificates
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/healthcheck.sh"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/start.sh"]
