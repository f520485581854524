# The two commands of the README.
.PHONY: run test build fixtures

build:
	go build -o bin/weft ./cmd/weft

run: build
	./bin/weft serve

# Installs the npm test fixtures if missing, then runs every test with the
# race detector. Tests that need the fixtures fail (not skip) under CI.
fixtures:
	@test -d testdata/npm/node_modules || npm ci --prefix testdata/npm --no-audit --no-fund --loglevel=error

test: fixtures
	go test -race -count=1 -timeout 20m ./...
