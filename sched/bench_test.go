// Benchmarks: hot-path costs and a side-by-side with the Go runtime.
// Run: go test -run '^$' -bench . ./sched/
// Each benchmark also prints a `BENCH name value unit` line at the end of
// the run (TestMain), for scripts.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
)

var benchOut struct {
	sync.Mutex
	lines map[string]string
}

func benchLine(name, value, unit string) {
	benchOut.Lock()
	defer benchOut.Unlock()
	if benchOut.lines == nil {
		benchOut.lines = make(map[string]string)
	}
	benchOut.lines[name+" "+unit] = fmt.Sprintf("BENCH %s %s %s", name, value, unit)
}

func TestMain(m *testing.M) {
	code := m.Run()
	var keys []string
	for k := range benchOut.lines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(benchOut.lines[k])
	}
	os.Exit(code)
}

// measure runs op b.N times and records ns/op and allocs/op (the last,
// largest b.N wins).
func measure(b *testing.B, name string, op func()) float64 {
	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		op()
	}
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	benchLine(name, fmt.Sprintf("%.1f", ns), "ns/op")
	benchLine(name, fmt.Sprintf("%.2f", float64(m1.Mallocs-m0.Mallocs)/float64(b.N)), "allocs/op")
	return ns
}

func BenchmarkRunqput(b *testing.B) {
	s, _ := newTestSched(b, 1, "gmp")
	pp := &s.allp[0]
	gp := takeG(b, s)
	n := 0
	measure(b, "runqput", func() {
		s.runqput(pp, gp, false)
		if n++; n == runqSize { // keep the ring from overflowing, outside the common path
			pp.runqhead.Store(pp.runqtail.Load())
			n = 0
		}
	})
}

func BenchmarkRunqget(b *testing.B) {
	s, _ := newTestSched(b, 1, "gmp")
	pp := &s.allp[0]
	gp := takeG(b, s)
	n := 0
	measure(b, "runqget", func() {
		if n == 0 { // refill: one put per 256 gets, amortised away
			pp.runqtail.Store(pp.runqhead.Load() + runqSize)
			for i := range pp.runq {
				pp.runq[i].Store(uint32(gp))
			}
			n = runqSize
		}
		s.runqget(pp)
		n--
	})
}

func BenchmarkRunqsteal(b *testing.B) {
	s, f := newTestSched(b, 2, "gmp")
	p0, p1 := &s.allp[0], &s.allp[1]
	var gs [32]GID
	for i := range gs {
		gs[i] = takeG(b, s)
	}
	measure(b, "runqsteal(refill-32+steal-16)", func() {
		p0.runqhead.Store(0)
		p0.runqtail.Store(0)
		p1.runqhead.Store(0)
		p1.runqtail.Store(0)
		for _, gp := range gs {
			p0.runq[p0.runqtail.Load()].Store(uint32(gp))
			p0.runqtail.Add(1)
		}
		s.runqsteal(p1, p0, false, f.Now())
	})
}

// A full schedule decision: the running G yields (GoYield) and Schedule
// picks the next one, with 8 Gs on 4 Ps.
func BenchmarkScheduleDecision(b *testing.B) {
	for _, pol := range PolicyNames() {
		b.Run(pol, func(b *testing.B) {
			s, _ := newTestSched(b, 4, pol)
			for i := 0; i < 8; i++ {
				s.NewProc(0)
			}
			s.Schedule(0)
			measure(b, "schedule/"+pol, func() {
				s.GoYield(0)
				s.Schedule(0)
			})
		})
	}
}

// Side by side with the Go runtime: spawn a G that runs and exits while
// its spawner waits, and a ping-pong between two Gs. gmpos measures only
// the scheduling decisions (the kernel adds the register switch); the Go
// side is a real goroutine switch. The ratio is gmpos/Go.
func BenchmarkVsRuntimeSpawn(b *testing.B) {
	var gm, goNs float64
	b.Run("gmpos", func(b *testing.B) {
		s, _ := newTestSched(b, 1, "gmp")
		spawner := s.NewProc(0)
		s.Schedule(0)
		gm = measure(b, "spawn/gmpos", func() {
			s.NewProc(0)        // child to runnext
			s.Park(0)           // spawner waits
			s.Schedule(0)       // child runs
			s.Ready(spawner, 0) // child wakes the spawner
			s.Exit(0)           // and exits
			if g, _ := s.Schedule(0); g != spawner {
				panic("spawn: wrong G")
			}
		})
	})
	b.Run("go", func(b *testing.B) {
		ch := make(chan struct{})
		goNs = measure(b, "spawn/go", func() {
			go func() { ch <- struct{}{} }()
			<-ch
		})
	})
	if goNs > 0 {
		benchLine("spawn/ratio(gmpos/go)", fmt.Sprintf("%.3f", gm/goNs), "x")
	}
}

func BenchmarkVsRuntimePingPong(b *testing.B) {
	var gm, goNs float64
	b.Run("gmpos", func(b *testing.B) {
		s, _ := newTestSched(b, 1, "gmp")
		a := s.NewProc(0)
		s.Schedule(0)
		bb := s.NewProc(0)
		s.Park(0)
		s.Schedule(0) // bb runs, a waits
		other := a
		gm = measure(b, "pingpong/gmpos", func() { // one hand-off per op
			s.Ready(other, 0)
			other = s.Park(0)
			s.Schedule(0)
		})
		_ = bb
	})
	b.Run("go", func(b *testing.B) {
		ping, pong := make(chan struct{}), make(chan struct{})
		go func() {
			for range ping {
				pong <- struct{}{}
			}
		}()
		goNs = measure(b, "pingpong/go-roundtrip", func() {
			ping <- struct{}{}
			<-pong
		})
		close(ping)
		goNs /= 2 // two hand-offs per round trip
		benchLine("pingpong/go", fmt.Sprintf("%.1f", goNs), "ns/handoff")
	})
	if goNs > 0 {
		benchLine("pingpong/ratio(gmpos/go)", fmt.Sprintf("%.3f", gm/goNs), "x")
	}
}

// The same decision with every P busy at once (one goroutine per P): shows
// the shared-lock contention of `global` against the per-P queues of gmp.
func BenchmarkScheduleParallel(b *testing.B) {
	for _, pol := range PolicyNames() {
		b.Run(pol, func(b *testing.B) {
			np := runtime.GOMAXPROCS(0)
			s, _ := newTestSched(b, np, pol)
			for pid := 0; pid < np; pid++ {
				for i := 0; i < 4; i++ {
					s.NewProc(pid)
				}
				s.Schedule(pid)
			}
			var next atomic.Int32
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				pid := int(next.Add(1)-1) % np
				for pb.Next() {
					if s.Curg(pid) != 0 {
						s.GoYield(pid)
					}
					s.Schedule(pid)
				}
			})
			b.StopTimer()
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			benchLine("schedule-parallel/"+pol, fmt.Sprintf("%.1f", ns), "ns/op")
		})
	}
}
