package simulator

import (
	"math"
	"testing"
)

func TestPercentileNearestRank(t *testing.T) {
	xs := []Time{50, 10, 40, 20, 30}
	for _, c := range []struct {
		p    float64
		want Time
	}{{0, 10}, {20, 10}, {21, 20}, {50, 30}, {99, 50}, {100, 50}} {
		if got := percentile(xs, c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
	if xs[0] != 50 {
		t.Errorf("percentile sorted its input in place")
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %d", got)
	}
}

func TestJain(t *testing.T) {
	if got := jain([]float64{1, 1, 1, 1}); got != 1 {
		t.Errorf("equal shares: %v, want 1", got)
	}
	if got := jain([]float64{1, 0, 0, 0}); math.Abs(got-0.25) > 1e-12 {
		t.Errorf("one winner of 4: %v, want 0.25", got)
	}
	if got := jain([]float64{1, 0.5}); math.Abs(got-0.9) > 1e-12 {
		t.Errorf("(1,0.5): %v, want 0.9", got)
	}
}

func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		d    Time
		want string
	}{{999, "999ns"}, {1500, "1.50µs"}, {10 * Millisecond, "10.00ms"}, {1234567890, "1.23s"}, {1005, "1.01µs"}} {
		if got := FormatDuration(c.d); got != c.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestUtilString(t *testing.T) {
	r := &Result{Makespan: 100, Busy: []Time{100, 50, 0, 99}}
	if got := utilString(r); got != "100/50/0/99" {
		t.Errorf("4 cores: %q", got)
	}
	r.Busy = make([]Time, 10)
	for i := range r.Busy {
		r.Busy[i] = Time(10 * i)
	}
	if got := utilString(r); got != "0-90 avg 45" {
		t.Errorf("10 cores: %q", got)
	}
}
