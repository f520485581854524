package audit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/audit"
	"github.com/weft-dev/weft/internal/hub"
)

// BenchmarkCallEnded is one tool call's audit line: encode, digest, write.
func BenchmarkCallEnded(b *testing.B) {
	l, err := audit.Open(audit.Options{File: b.TempDir() + "/audit.jsonl", Redactor: secrets("ghp_SECRET123")})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	c := toolCall(`{"message":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		l.CallEnded(context.Background(), c)
	}
}

// BenchmarkCallEndedOK is the line of a call that succeeded, ended with the
// context a call has by then: net/http's, go-sdk's and weft's values, a
// dozen deep, which a lookup of a value that is not there walks in full.
func BenchmarkCallEndedOK(b *testing.B) {
	l, err := audit.Open(audit.Options{File: b.TempDir() + "/audit.jsonl", Redactor: secrets("ghp_SECRET123")})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 12 {
		ctx = context.WithValue(ctx, benchKey(i), i)
	}
	c := &hub.Call{Caller: hub.Caller{Face: "http", Client: "bench"}, Server: "bench", Tool: "bench__echo",
		Args: []byte(`{"message":"hello"}`), Start: time.Now(), Duration: 512 * time.Microsecond, Outcome: hub.OutcomeOK}
	b.ReportAllocs()
	for b.Loop() {
		l.CallEnded(ctx, c)
	}
}

type benchKey int

func (k benchKey) String() string { return fmt.Sprint("key ", int(k)) }

// BenchmarkCallEndedParallel is calls ending at once, 16 per core.
func BenchmarkCallEndedParallel(b *testing.B) {
	l, err := audit.Open(audit.Options{File: b.TempDir() + "/audit.jsonl", Redactor: secrets("ghp_SECRET123")})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		c := toolCall(`{"message":"hello"}`)
		for pb.Next() {
			l.CallEnded(context.Background(), c)
		}
	})
}
