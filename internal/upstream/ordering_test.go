package upstream

import (
	"context"
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
