# The two commands of the README, plus install and release builds.
.PHONY: run test build fixtures install dist

PKG     := github.com/weft-dev/weft
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
# Stamps the version and commit `weft version` prints.
STAMP   := -X $(PKG)/internal/cli.Version=$(VERSION) -X $(PKG)/internal/cli.Commit=$(COMMIT)
# Where `make install` puts weft: PREFIX/bin when PREFIX is set, else where
# `go install` would ($(go env GOBIN), else $(go env GOPATH)/bin).
BINDIR  ?= $(if $(PREFIX),$(PREFIX)/bin,$(or $(shell go env GOBIN),$(shell go env GOPATH)/bin))
# The release targets of `make dist`.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
DIST    ?= dist

build:
	go build -ldflags "$(STAMP)" -o bin/weft ./cmd/weft

run: build
	./bin/weft serve

# Installs the npm test fixtures if missing, then runs every test with the
# race detector. Tests that need the fixtures fail (not skip) under CI.
fixtures:
	@test -d testdata/npm/node_modules || npm ci --prefix testdata/npm --no-audit --no-fund --loglevel=error

test: fixtures
	go test -race -count=1 -timeout 20m ./...

install:
	mkdir -p "$(BINDIR)"
	go build -trimpath -ldflags "-s -w $(STAMP)" -o "$(BINDIR)/weft$(shell go env GOEXE)" ./cmd/weft
	@echo "installed $(BINDIR)/weft$(shell go env GOEXE)"

# Stripped, -trimpath, version-stamped binaries for every platform, and
# their SHA256SUMS.
dist:
	rm -rf "$(DIST)" && mkdir -p "$(DIST)"
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ "$$os" = windows ] && ext=.exe; \
		out="$(DIST)/weft-$(VERSION)-$$os-$$arch$$ext"; \
		echo "build $$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags "-s -w $(STAMP)" -o "$$out" ./cmd/weft; \
	done
	cd "$(DIST)" && sha256sum weft-* > SHA256SUMS
