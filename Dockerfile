# graphmem: one static binary on a small base image.
#   docker build --build-arg GRAPHMEM_COMMIT="$(git rev-parse HEAD)" -t graphmem .
#   docker run -p 127.0.0.1:8080:8080 -v graphmem-data:/data \
#     -e GRAPHMEM_API_KEYS="me:$(openssl rand -hex 16)=user:me" graphmem
# Without GRAPHMEM_API_KEYS the server refuses to start on 0.0.0.0 and says
# what to set; GRAPHMEM_OPEN_MODE=on serves without keys (publish the port
# to 127.0.0.1 only, as above), with a warning in the log.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build context has no .git, so the commit comes in as an argument; the
# release (VERSION) is compiled in.
ARG GRAPHMEM_COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.commit=${GRAPHMEM_COMMIT}" -o /out/graphmem ./cmd/graphmem

FROM alpine:3.20
RUN adduser -D -u 10001 graphmem && mkdir -p /data && chown graphmem /data
COPY --from=build /out/graphmem /usr/local/bin/graphmem
USER graphmem
ENV GRAPHMEM_DATA=/data GRAPHMEM_ADDR=0.0.0.0:8080
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD wget -qO- http://127.0.0.1:8080/readyz >/dev/null || exit 1
ENTRYPOINT ["graphmem"]
CMD ["serve"]
