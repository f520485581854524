package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	cases := []struct {
		status int
		should string
		want   bool
	}{
		{0, "", true}, {408, "", true}, {409, "", true}, {429, "", true}, {500, "", true}, {503, "", true},
		{400, "", false}, {401, "", false}, {404, "", false},
		{400, "true", true}, {503, "false", false},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.should != "" {
			h.Set("X-Should-Retry", c.should)
		}
		if got := retryable(c.status, h); got != c.want {
			t.Errorf("retryable(%d, X-Should-Retry %q) = %v, want %v", c.status, c.should, got, c.want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	cases := []struct {
		name     string
		header   map[string]string
		attempt  int
		min, max time.Duration
	}{
		{"retry-after-ms", map[string]string{"Retry-After-Ms": "250"}, 0, 250 * time.Millisecond, 250 * time.Millisecond},
		{"retry-after seconds", map[string]string{"Retry-After": "2"}, 0, 2 * time.Second, 2 * time.Second},
		{"retry-after too long: backoff", map[string]string{"Retry-After": "3600"}, 0, 375 * time.Millisecond, retryInitial},
		{"first backoff", nil, 0, 375 * time.Millisecond, retryInitial},
		{"third backoff", nil, 2, 1500 * time.Millisecond, 2 * time.Second},
		{"backoff is capped", nil, 10, 6 * time.Second, retryMax},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		if d := retryDelay(c.attempt, h); d < c.min || d > c.max {
			t.Errorf("%s: delay %v, want within [%v, %v]", c.name, d, c.min, c.max)
		}
	}
}
