package procgroup

import (
	"sync"
	"testing"
)

// TestScanShareNeverHandsOutAnEarlierScan checks that callers arriving
// while a scan runs wait for the next one, which they share: two scans for
// one caller and ten that came during its scan, each answered by a scan
// that started after it asked.
func TestScanShareNeverHandsOutAnEarlierScan(t *testing.T) {
	release := make(chan struct{})
	started := make(chan int, 10)
	var mu sync.Mutex
	scans := 0
	s := scanShare{read: func() map[int]procStat {
		mu.Lock()
		scans++
		n := scans
		mu.Unlock()
		started <- n
		<-release
		return map[int]procStat{n: {}}
	}}
	const late = 10
	queued := make(chan struct{}, 2*late)
	s.queued = func() { queued <- struct{}{} }
	first := make(chan map[int]procStat, 1)
	go func() { first <- s.scan() }()
	if n := <-started; n != 1 {
		t.Fatalf("the first scan is number %d", n)
	}
	results := make(chan map[int]procStat, late)
	for range late {
		go func() { results <- s.scan() }()
	}
	for range late { // every late caller asked while the first scan runs
		<-queued
	}
	release <- struct{}{} // end the first scan
	if got := <-first; len(got) != 1 || got[1] != (procStat{}) {
		t.Fatalf("the first caller got %v, want the first scan", got)
	}
	if n := <-started; n != 2 {
		t.Fatalf("the late callers' scan is number %d, want 2", n)
	}
	release <- struct{}{}
	for range late {
		if got := <-results; len(got) != 1 || got[2] != (procStat{}) {
			t.Fatalf("a late caller got %v, want the second scan", got)
		}
	}
	if scans != 2 {
		t.Fatalf("%d scans for eleven callers, want 2", scans)
	}
}
