# Chess Gold's container image (docs/operations.md, "Containers").
#
# Two stages: `build` compiles the server in release mode from the committed `.sqlx/` query data
# (no database at build time); the runtime stage holds only the binary, `static/` and `config/`,
# runs as an unprivileged user, applies the migrations at start (database.migrate_on_start) and
# reports its health from `/healthz`. Templates are compiled into the binary.
#
# The base images are build arguments. By default they are the official Rust and Debian images;
# scripts/image builds both from Debian's packages with debootstrap instead (no registry needed):
#   podman build --isolation=chroot --format docker \
#     --build-arg BUILDER_IMAGE=... --build-arg RUNTIME_IMAGE=... -t chessgold .
ARG BUILDER_IMAGE=docker.io/library/rust:1.95-bookworm
ARG RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${BUILDER_IMAGE} AS build
WORKDIR /src
ENV SQLX_OFFLINE=true CARGO_INCREMENTAL=0
COPY . .
# The registry and the target folder are build caches: a rebuild compiles only what changed.
RUN --mount=type=cache,id=chessgold-cargo-registry,target=/usr/local/cargo/registry \
    --mount=type=cache,id=chessgold-target,target=/src/target \
    cargo build --release --locked --bin chessgold \
    && install -m 0755 target/release/chessgold /usr/local/bin/chessgold

FROM ${RUNTIME_IMAGE}
RUN useradd --uid 10001 --user-group --home-dir /srv/chessgold --no-create-home --shell /usr/sbin/nologin chessgold \
    && mkdir -p /srv/chessgold \
    && chown chessgold:chessgold /srv/chessgold
WORKDIR /srv/chessgold
COPY --from=build /usr/local/bin/chessgold /usr/local/bin/chessgold
COPY static ./static
COPY config ./config
# Production settings: the session key must come from the environment
# (CHESSGOLD__APPLICATION__SESSION_KEY, the same on every instance), and DATABASE_URL names the
# database; CHESSGOLD__REDIS__URL joins the instances through Redis.
ENV CHESSGOLD_ENV=production \
    CHESSGOLD__APPLICATION__HOST=0.0.0.0 \
    CHESSGOLD__APPLICATION__PORT=8080 \
    CHESSGOLD__LOG__FORMAT=json
USER chessgold
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/chessgold", "health"]
CMD ["/usr/local/bin/chessgold", "serve"]
