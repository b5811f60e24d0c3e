# graphmem: one static binary on a small base image.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/graphmem ./cmd/graphmem

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
