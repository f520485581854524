package upstream

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestSettleWaitsForNotificationsReadBeforeTheResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newNoteOrder()
		o.gotRead()
		o.gotRead()
		settled := make(chan time.Duration, 1)
		start := time.Now()
		go func() { o.settle(context.Background()); settled <- time.Since(start) }()
		o.gotRelayed()
		synctest.Wait()
		select {
		case <-settled:
			t.Fatal("settle returned with one notification still to relay")
		default:
		}
		o.gotRelayed()
		if d := <-settled; d != 0 {
			t.Fatalf("settle took %v after the last relay, want at once", d)
		}
	})
}

func TestSettleGivesUpAfterSettleMaxAndLevelsTheCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newNoteOrder()
		o.gotRead() // dropped by the SDK: never relayed
		start := time.Now()
		o.settle(context.Background())
		if d := time.Since(start); d != settleMax {
			t.Fatalf("settle waited %v, want %v", d, settleMax)
		}
		start = time.Now()
		o.settle(context.Background())
		if d := time.Since(start); d != 0 {
			t.Fatalf("a second settle waited %v for the same lost notification", d)
		}
	})
}

func TestSettleOnUncountedConnectionReturnsAtOnce(t *testing.T) {
	var o *noteOrder
	o.settle(context.Background())
}

// An HTTP upstream's event stream is counted by shallowBody's line check
// as go-sdk reads it, whatever the reads' sizes, and passes through as it
// came.
func TestEventStreamCountsProgressAndLogNotificationsOnly(t *testing.T) {
	const (
		progress = `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}` + "\n\n"
		logMsg   = "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\r\n\r\n"
		request  = `data: {"jsonrpc":"2.0","id":3,"method":"notifications/progress"}` + "\n\n"
		changed  = `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n\n"
		result   = `data: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n\n"
	)
	long := `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", maxCountedLine) + `"}}` + "\n\n"
	for _, tc := range []struct {
		name   string
		stream string
		chunk  int // bytes per Read; 0: all at once
		want   uint64
	}{
		{"progress then result", progress + result, 0, 1},
		{"split across reads", progress + logMsg + result, 7, 2},
		{"CRLF lines", logMsg, 1, 1},
		{"a request with an id is no notification", request, 0, 0},
		{"other notifications do not count", changed + result, 0, 0},
		{"a line over the counted bound is not searched", long + progress, 4096, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newNoteOrder()
			var body io.Reader = strings.NewReader(tc.stream)
			if tc.chunk > 0 {
				body = &chunkReader{r: body, n: tc.chunk}
			}
			resp := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body)}
			shallowBody(resp, 4<<20, o)
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.stream {
				t.Errorf("the stream changed on its way through: %d bytes, want %d", len(got), len(tc.stream))
			}
			if o.read != tc.want {
				t.Errorf("counted %d, want %d", o.read, tc.want)
			}
		})
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), c.n)])
}

// A stdio line is counted before go-sdk decodes it, so the count must see
// the method go-sdk will see: an encoder may escape the slash (PHP's
// json_encode does by default) or any other character. A notification
// relayed but never counted lets relayed run ahead of read, and a later
// result then overtakes its own notifications.
func TestStdioLineCountsNotificationsWrittenWithEscapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		want uint64
	}{
		{"plain", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, 1},
		{"escaped slash", `{"jsonrpc":"2.0","method":"notifications\/progress","params":{"progressToken":1,"progress":1}}`, 1},
		{"escaped slash, log", `{"jsonrpc":"2.0","method":"notifications\/message","params":{"level":"info","data":"x"}}`, 1},
		{"unicode escapes", `{"jsonrpc":"2.0","method":"\u006eotifications\u002fprogress","params":{"progressToken":1,"progress":1}}`, 1},
		{"escaped key", `{"jsonrpc":"2.0","\u006dethod":"notifications/progress","params":{"progressToken":1,"progress":1}}`, 1},
		{"escaped, other notification", `{"jsonrpc":"2.0","method":"notifications\/tools\/list_changed"}`, 0},
		{"escaped, a request", `{"jsonrpc":"2.0","id":4,"method":"notifications\/progress"}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newNoteOrder()
			if stdioLine(newRawConn(nil), o)([]byte(tc.line)) {
				t.Fatal("the line was taken from the session")
			}
			if o.read != tc.want {
				t.Errorf("counted %d, want %d", o.read, tc.want)
			}
		})
	}
}

// TestStdioLineCountsTheNotificationsOfABatch: go-sdk reads a line that
// is a JSON array as a batch and relays each of its notifications (the
// 2025-03-26 revision allows servers to batch); the count must take each
// too, or relayed runs ahead of read and later results overtake their
// notifications.
func TestStdioLineCountsTheNotificationsOfABatch(t *testing.T) {
	const batch = `[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},` +
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},` +
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"},` +
		`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}]`
	o := newNoteOrder()
	if stdioLine(newRawConn(nil), o)([]byte(batch)) {
		t.Fatal("the batch was taken from the session")
	}
	if o.read != 2 {
		t.Errorf("counted %d of the batch's notifications, want 2", o.read)
	}
}
