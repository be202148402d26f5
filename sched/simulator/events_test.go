package simulator

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestEventQueueOrder checks the heap against a sort: events come out by
// time, and FIFO among equal times (which determinism depends on).
func TestEventQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q eventQueue
	var want []event
	for i := 0; i < 2000; i++ {
		e := event{at: Time(r.IntN(50)), g: i}
		q.push(e)
		e.seq = uint64(i)
		want = append(want, e)
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })
	for i, w := range want {
		got := q.pop()
		if got.at != w.at || got.g != w.g {
			t.Fatalf("pop %d: got (at=%d g=%d), want (at=%d g=%d)", i, got.at, got.g, w.at, w.g)
		}
	}
	if q.len() != 0 {
		t.Fatalf("queue not empty: %d", q.len())
	}
}
