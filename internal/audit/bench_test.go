package audit_test

import (
	"context"
	"testing"

	"github.com/weft-dev/weft/internal/audit"
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
