// Interrupt-context rule: hot paths allocate nothing (testing.AllocsPerRun).
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "testing"

func assertNoAllocs(t *testing.T, name string, f func()) {
	t.Helper()
	if n := testing.AllocsPerRun(1000, f); n != 0 {
		t.Errorf("%s: %v allocs/op, want 0", name, n)
	}
}

func TestAllocsRunq(t *testing.T) {
	s, f := newTestSched(t, 2, "gmp")
	p0, p1 := &s.allp[0], &s.allp[1]
	a, b := takeG(t, s), takeG(t, s)
	assertNoAllocs(t, "runqput+runqget", func() {
		s.runqput(p0, a, false)
		s.runqget(p0)
	})
	assertNoAllocs(t, "runqput(next)+runqget", func() {
		s.runqput(p0, a, true)
		s.runqput(p0, b, true)
		s.runqget(p0)
		s.runqget(p0)
	})
	assertNoAllocs(t, "runqsteal", func() {
		s.runqput(p0, a, false)
		s.runqput(p0, b, false)
		gp, _ := s.runqsteal(p1, p0, true, f.Now())
		s.runqget(p0)
		if gp == 0 {
			panic("steal failed")
		}
	})
	assertNoAllocs(t, "globrunqput+globrunqgetbatch", func() {
		s.globrunqput(a)
		s.globrunqput(b)
		s.globrunqgetbatch(p0, runqSize/2)
		s.runqget(p0)
	})
	var gs [runqSize + 1]GID
	for i := range gs {
		gs[i] = takeG(t, s)
	}
	assertNoAllocs(t, "runqputslow", func() {
		for _, gp := range gs {
			s.runqput(p0, gp, false)
		}
		for s.globrunqget() != 0 {
		}
		for gp, _ := s.runqget(p0); gp != 0; gp, _ = s.runqget(p0) {
		}
	})
}

// Every entry point, under every policy, with a trace hook and a poller.
func TestAllocsEntryPoints(t *testing.T) {
	for _, pol := range PolicyNames() {
		t.Run(pol, func(t *testing.T) {
			s := new(Sched)
			f := &fakePlatform{auto: 1000}
			pl := new(fakePoller)
			var events int
			tr := func(ev TraceEvent, pid int, gp GID, now int64) { events++ }
			if err := s.Init(Config{NP: 4, PolicyName: pol, Platform: f, Poller: pl, Trace: tr}); err != nil {
				t.Fatal(err)
			}
			for pid := 1; pid < 4; pid++ {
				s.Schedule(pid) // idle, so wakep has Ps to wake
			}
			assertNoAllocs(t, "NewG+StartG+Schedule+Exit", func() {
				s.StartG(s.NewG(0, 0), 0)
				s.Schedule(0)
				s.Exit(0)
			})
			assertNoAllocs(t, "NewProc+Schedule+Exit", func() {
				s.NewProc(0)
				s.Schedule(0)
				s.Exit(0)
			})
			a := s.NewProc(0)
			s.Schedule(0)
			assertNoAllocs(t, "Park+Schedule+Ready+Schedule", func() {
				s.Park(0)
				s.Schedule(0)
				s.Ready(a, 0)
				s.Schedule(0)
			})
			assertNoAllocs(t, "Gosched/GoYield/Preempt+Schedule", func() {
				s.Gosched(0)
				s.Schedule(0)
				s.GoYield(0)
				s.Schedule(0)
				s.Preempt(0)
				s.Schedule(0)
			})
			assertNoAllocs(t, "Tick", func() {
				s.Tick(0, f.Now())
			})
			assertNoAllocs(t, "PreemptAt", func() {
				s.PreemptAt(0)
			})
			assertNoAllocs(t, "steal via Schedule on a woken P", func() {
				s.NewProc(0)
				s.NewProc(0)
				s.NewProc(0)
				for pid := 1; pid < 4; pid++ {
					if s.Curg(pid) == 0 {
						s.Schedule(pid)
					}
					if s.Curg(pid) != 0 {
						s.Exit(pid)
					}
				}
				for s.Curg(0) != 0 {
					s.Exit(0)
					s.Schedule(0)
				}
				s.Schedule(0)
			})
			if events == 0 {
				t.Fatal("trace hook never called")
			}
		})
	}
}

func TestAppendTrace(t *testing.T) {
	s, _ := newTestSched(t, 2, "gmp")
	s.NewProc(0)
	s.NewProc(0)
	s.Schedule(0)
	s.Schedule(1) // steals G 1 from P0's LRQ
	s.Exit(1)
	s.Schedule(1) // nothing left: idle
	buf := make([]byte, 0, 256)
	assertNoAllocs(t, "AppendTrace", func() { buf = s.AppendTrace(buf[:0]) })
	want := "SCHED np=2 idle=1 spinning=0 live=1 grq=0 [P0 cur=2 runq=0 next=0 switches=1] [P1 idle cur=0 runq=0 next=0 switches=1]"
	if got := string(buf); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// staticSched is how the kernel holds its scheduler: a package-level value.
var staticSched Sched

// Boot context: Init and PolicyByName allocate nothing (the Go heap does not
// exist yet when the kernel calls them).
func TestAllocsInit(t *testing.T) {
	f := new(fakePlatform)
	pl := new(fakePoller)
	for _, name := range PolicyNames() {
		assertNoAllocs(t, "PolicyByName("+name+")", func() {
			if PolicyByName(name) == nil {
				panic("missing policy")
			}
		})
	}
	assertNoAllocs(t, "Init", func() {
		if err := staticSched.Init(Config{NP: MaxP, PolicyName: "gmp", Platform: f, Poller: pl}); err != nil {
			panic(err)
		}
	})
	assertNoAllocs(t, "Init error", func() {
		if staticSched.Init(Config{NP: 1, PolicyName: "bogus", Platform: f}) != ErrNoPolicy {
			panic("want ErrNoPolicy")
		}
	})
}

func TestCheckInvariantsDetects(t *testing.T) {
	s, _ := newTestSched(t, 2, "gmp")
	a := s.NewProc(0)
	b := s.NewProc(0)
	s.Schedule(0)
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	assertNoAllocs(t, "CheckInvariants", func() { s.CheckInvariants() })
	// Duplicate: put the running G b on the GRQ too.
	s.globrunqput(b)
	if err := s.CheckInvariants(); err != ErrGTwice {
		t.Fatalf("duplicate not detected: %v", err)
	}
	s.globrunqget()
	// Loss: drop a from P0's LRQ behind the scheduler's back.
	s.allp[0].runqhead.Add(1)
	if err := s.CheckInvariants(); err != ErrGLost {
		t.Fatalf("loss of G %d not detected: %v", a, err)
	}
}
