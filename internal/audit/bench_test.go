package audit_test

import (
	"context"
	"fmt"
	"os"
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

// BenchmarkAppendLine is the write(2) a call's line costs before the call
// is answered, with nothing of the log's own around it: appended to a file
// (t.TempDir's file system), and to os.DevNull, the system call alone.
func BenchmarkAppendLine(b *testing.B) {
	line := []byte(`{"time":"2026-11-26T22:27:30.253123456Z","kind":"tool_call","face":"http","client":"bench",` +
		`"server":"bench","tool":"bench__echo","duration_ms":0.512,"outcome":"ok","args_sha256":"` +
		`9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c9f2c"}` + "\n")
	for name, path := range map[string]string{"file": b.TempDir() + "/audit.jsonl", "devnull": os.DevNull} {
		b.Run(name, func(b *testing.B) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			for b.Loop() {
				if _, err := f.Write(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
