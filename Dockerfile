# The server image: built with the Rust toolchain, run on a slim Debian.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p spades \
    && cp target/release/spades /usr/local/bin/spades

FROM debian:bookworm-slim
COPY --from=build /usr/local/bin/spades /usr/local/bin/spades
RUN useradd --system --home /var/lib/spades --create-home spades
USER spades
WORKDIR /var/lib/spades
ENV SPADES_BIND=0.0.0.0:8080
EXPOSE 8080
# Serving is the default; SIGTERM drains and stops.
ENTRYPOINT ["spades"]
