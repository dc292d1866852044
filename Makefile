# mtk: the two commands a new user needs are `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
export PATH := $(PATH):/usr/local/go/bin

.PHONY: run replicas replicas-stop test services cluster services-stop browser build vet fmt-check lint bench clean

## run: start the local stores, migrate, seed the demo and serve on http://127.0.0.1:8080
run: services build
	@scripts/run.sh

## replicas: like run, scaled out: three `serve --role api` replicas (18081-18083) and two
## `--role worker`s (18091-18092) sharing rate limits through Redis, behind HAProxy on
## http://127.0.0.1:8080 (installed by services when missing); config, logs and pids in
## .data/replicas/
replicas: services build
	@scripts/replicas.sh start

## replicas-stop: stop them (the stores stay up)
replicas-stop:
	@scripts/replicas.sh stop

## test: check gofmt, go vet and staticcheck (installed when missing), start the local stores and
## the two-shard test cluster (and install chromium for the dashboard's browser test, chDB for
## the conformance test with current ClickHouse and swagger-parser for the OpenAPI document's
## second validator), then the whole test suite against them
test: fmt-check vet lint services cluster browser
	MTK_CHDB_LIB=$$(scripts/chdb.sh) MTK_SWAGGER_PARSER=$$(scripts/swagger-parser.sh) $(GO) test -count=1 -timeout 30m ./...

## services: install (when missing) and start ClickHouse, PostgreSQL and Redis under .data/
services:
	@scripts/services.sh start

## browser: install Debian's chromium when missing; the dashboard's test drives it headless
browser:
	@scripts/services.sh chromium

## cluster: install (when missing) and start the two-shard ClickHouse test cluster (with its
## ZooKeeper) under .data/cluster/
cluster:
	@scripts/cluster.sh start

## services-stop: stop them and the test cluster
services-stop:
	@scripts/services.sh stop
	@scripts/cluster.sh stop

## bench: start the local stores, then the answer cache's hits (server CPU per hit, hits/s at
## saturation), the query benchmark over 10 M generated rows, its
## dashboard run (50 projects, the answer cache on and off, live writes), the floor run over its
## data (each dashboard query's p50 ÷ its own SQL over ClickHouse's HTTP interface, statements
## per answer), the traffic-source mix
## over 10 M business facts (engine BenchmarkBusinessQuery), the ingest benchmark (events and
## orders over HTTP at 64 clients) and the replicas run (events and dashboard req/s through
## HAProxy over one and three api replicas, an outage backlog drained by 1, 2 and 4 workers; then
## ClickHouse statements per dashboard request of three replicas with and without shared answers), the
## attribution models against reported (100 k orders, 2 M touches: writing credits takes minutes),
## credit rows landed per second (4,000 credit_outbox rows, benchmarks/credits), the demo's
## last 30 days by utm_source under every model and touch set with its totals checked
## (benchmarks/channels: seeds its own demo as make run does),
## and the tag's cost (its gzipped size, its main-thread time per page load in Chromium); see
## benchmarks/README.md. The tables are printed; the query and dashboard JSON are written to
## benchmarks/results/, and the steps' headline figures to benchmarks/results/figures.tsv, which
## the last step prints as issue 41's before/now table (benchmarks/summary)
bench: services build
	$(GO) run ./benchmarks/query -hits
	$(GO) run ./benchmarks/query -rows 10000000 -out benchmarks/results/query.json
	$(GO) run ./benchmarks/query -dashboard -rows 10000000 -out benchmarks/results/dashboard.json
	$(GO) run ./benchmarks/query -floor -rows 10000000 -queries cards,daily,campaigns,today_hourly
	$(GO) test ./engine -run XXX -bench BusinessQuery -bench.rows 10000000 -benchtime 40x -timeout 60m
	$(GO) test ./engine -run XXX -bench Attribution -benchtime 1x -timeout 60m -bench.orders 100000 -bench.touches 2000000
	$(GO) run ./benchmarks/credits
	$(GO) run ./benchmarks/channels
	MTK_RATE_LIMITS=off $(GO) run ./benchmarks/ingest
	MTK_RATE_LIMITS=off $(GO) run ./benchmarks/ingest -duration 30s -orders-duration 5s -outage 10s -pg-freeze 5s
	$(GO) run ./benchmarks/replicas
	$(GO) run ./benchmarks/replicas -shared
	$(GO) test ./tag -run XXX -bench TagCost -benchtime 20x
	$(GO) run ./benchmarks/summary

build:
	$(GO) build -o bin/mtk ./cmd/mtk
	$(GO) build -o bin/adsim ./cmd/adsim

vet:
	$(GO) vet ./...

## lint: staticcheck with its default checks, installed (when missing) under .data/tools/ by
## scripts/staticcheck.sh; a false positive is silenced at its line by a //lint:ignore saying why
lint:
	@sc=$$(scripts/staticcheck.sh) && echo "$$sc ./..." && $$sc ./...

## fmt-check: fail, listing them, when some Go files are not gofmt'ed
fmt-check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }

clean:
	rm -rf bin
