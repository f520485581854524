//go:build linux

package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"single", []time.Duration{7}, 99, 7},
		{"p50 of 1..100", hundred, 50, 50 * time.Millisecond},
		{"p99 of 1..100", hundred, 99, 99 * time.Millisecond},
		{"p100 of 1..100", hundred, 100, 100 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("percentile(%v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

func TestRunCountMakesExactlyNCallsAndCountsFailures(t *testing.T) {
	var calls atomic.Int64
	call := func(context.Context) error {
		if calls.Add(1)%10 == 0 {
			return errors.New("every tenth call fails")
		}
		return nil
	}
	s := runCount(context.Background(), call, 1000, 8)
	st := s.summarise()
	if st.Calls != 1000 || calls.Load() != 1000 {
		t.Fatalf("calls = %d (caller saw %d), want 1000", st.Calls, calls.Load())
	}
	if st.Failed != 100 {
		t.Errorf("failed = %d, want 100", st.Failed)
	}
	if len(s.errs) == 0 || len(s.errs) > 5 {
		t.Errorf("kept %d distinct errors, want 1..5", len(s.errs))
	}
}
