# Shared by scripts/build-image, scripts/image-standins, scripts/test-image
# and scripts/release (sourced, from the repository root).

# DOCKER is the docker client. Debian's docker.io client (/usr/bin/docker)
# is preferred when present: it builds with the engine's own BuildKit,
# where a newer client without the buildx plugin refuses to build.
if [ -z "${DOCKER:-}" ]; then
  if [ -x /usr/bin/docker ]; then DOCKER=/usr/bin/docker; else DOCKER=docker; fi
fi

# app_version prints appinfo/info.xml's <version>, the one place the
# version is written.
app_version() {
  sed -n 's:^[[:space:]]*<version>\([^<]*\)</version>.*:\1:p' appinfo/info.xml | head -1
}

# app_image prints the image name info.xml's <docker-install> names:
# registry/image (without the tag).
app_image() {
  local registry image
  registry=$(sed -n 's:^[[:space:]]*<registry>\([^<]*\)</registry>.*:\1:p' appinfo/info.xml | head -1)
  image=$(sed -n 's:^[[:space:]]*<image>\([^<]*\)</image>.*:\1:p' appinfo/info.xml | head -1)
  echo "$registry/$image"
}

# base_images prints the Dockerfile's FROM images, one a line, as written
# (with their @sha256 pins).
base_images() {
  awk '$1 == "FROM" { for (i = 2; i <= NF; i++) if ($i !~ /^--/) { print $i; break } }' Dockerfile |
    grep -v '^\(frontend\|build\)$' | sort -u
}

# image_name PREFIX prints the FROM image starting with PREFIX (e.g. "node:")
# without its digest pin: the name a local stand-in is tagged with.
image_name() {
  base_images | grep "^$1" | head -1 | sed 's/@sha256:[0-9a-f]*$//'
}
