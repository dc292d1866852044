# Multi-stage build of the mtk binary (and the adsim network simulator for demos).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/mtk ./cmd/mtk

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mtk /usr/local/bin/mtk
ENV MTK_LISTEN=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/mtk"]
CMD ["serve"]
