// G lifecycle entry points: newproc, goready, gopark, Gosched, goyield,
// preemption and goexit, as the kernel calls them.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// NewProc creates a G and makes it runnable on P pid (the creator's P): it
// goes to runnext under gmp, and an idle P is woken to pick up the displaced
// work. Returns 0 if the G table is full. Mirrors newproc/newproc1 (minus
// the stack: the kernel sets up the thread for the returned GID).
// Executed only by P pid's M. Any context.
func (s *Sched) NewProc(pid int) GID {
	return s.NewProcWeight(pid, DefaultWeight)
}

// NewProcWeight is NewProc with a fair-policy weight (1024 = nice 0; a G
// with weight 2048 gets twice the CPU of one with 1024 under `fair`).
// Other policies ignore the weight.
func (s *Sched) NewProcWeight(pid int, weight uint32) GID {
	gp := s.NewG(pid, weight)
	if gp != 0 {
		s.StartG(gp, pid)
	}
	return gp
}

// NewG allocates a G but does not make it runnable yet: it is in Gwaiting
// and on no queue, so no other core can pick it while the kernel fills in
// its thread state; StartG then releases it. NewProc = NewG + StartG.
// Mirrors newproc1 (the new g is _Gdead while being set up). Returns 0 if
// the G table is full. weight 0 means DefaultWeight.
// Executed only by P pid's M.
func (s *Sched) NewG(pid int, weight uint32) GID {
	gp := s.gfget()
	if gp == 0 {
		return 0
	}
	if weight == 0 {
		weight = DefaultWeight
	}
	g := &s.allg[gp]
	g.lastP.Store(int32(pid))
	g.weight = weight
	g.vruntime, g.deadline = 0, 0
	g.runTotal.Store(0)
	g.waitTotal.Store(0)
	g.nrun.Store(0)
	s.ngLive.Add(1)
	g.status.Store(uint32(Gwaiting))
	return gp
}

// StartG makes a G from NewG runnable on P pid: runnext under gmp, and an
// idle P is woken for the displaced work. Mirrors the end of newproc
// (runqput(pp, newg, true) + wakep). Panics if gp is not a fresh Gwaiting G.
// Executed only by P pid's M. Any context.
func (s *Sched) StartG(gp GID, pid int) {
	pp := s.pWake(pid)
	now := s.plat.Now()
	g := &s.allg[gp]
	if g.nrun.Load() != 0 {
		throw("StartG: G already started")
	}
	g.runnableSince = now
	if !g.status.CompareAndSwap(uint32(Gwaiting), uint32(Grunnable)) {
		throw("StartG: G is not a new G")
	}
	pp.stats.add(StatSpawn, 1)
	s.traceEv(TraceCreate, pid, gp, now)
	s.wake(s.policy.Enqueue(s, pid, gp, WhyNew))
}

// Ready makes the waiting G gp runnable; it goes to P pid's runnext under
// gmp (pid is the readier's P: the core running the waker or taking the
// interrupt) and an idle P is woken if no M is spinning. Mirrors
// goready/ready. Panics if gp is not Gwaiting (a double wake-up is a kernel
// bug). Executed only by P pid's M. Any context, including IRQ.
func (s *Sched) Ready(gp GID, pid int) {
	g := &s.allg[gp]
	pp := s.pWake(pid)
	now := s.plat.Now()
	g.runnableSince = now
	// The CAS publishes runnableSince and takes ownership: only one
	// readier can win.
	if !g.status.CompareAndSwap(uint32(Gwaiting), uint32(Grunnable)) {
		throw("Ready: G is not waiting")
	}
	pp.stats.add(StatReady, 1)
	s.traceEv(TraceReady, pid, gp, now)
	s.wake(s.policy.Enqueue(s, pid, gp, WhyReady))
}

// Park blocks the G running on P pid (Grunning → Gwaiting) and returns it;
// P pid then has no G and the caller runs Schedule(pid). Mirrors gopark +
// park_m. The kernel must make gp findable by its waker (futex queue, I/O
// wait list) only after Park returns, or hold the lock of that wait queue
// across Park, so that Ready never sees a G that is still running.
// This is also the hand-off: a G blocking in the kernel gives up its P, and
// the same core goes on to run another G (handoffp at kernel level).
// Executed only by P pid's M.
func (s *Sched) Park(pid int) GID {
	pp := &s.allp[pid]
	gp := s.dropg(pp, "Park: no running G")
	pp.stats.add(StatPark, 1)
	s.traceEv(TracePark, pid, gp, s.allg[gp].runStart)
	s.allg[gp].status.Store(uint32(Gwaiting)) // publish last: a readier may now take it
	return gp
}

// Gosched puts the G running on P pid on the global queue (runtime.Gosched →
// goschedImpl → globrunqput under gmp) and returns it.
// Executed only by P pid's M.
func (s *Sched) Gosched(pid int) GID {
	return s.requeue(pid, WhyGosched, TraceYield, StatYield)
}

// GoYield puts the G running on P pid at the tail of P pid's local queue
// (goyield → goyield_m → runqput(next=false)); unlike Gosched it does not
// leave the P. Executed only by P pid's M.
func (s *Sched) GoYield(pid int) GID {
	return s.requeue(pid, WhyYield, TraceYield, StatYield)
}

// Preempt takes the G running on P pid off the P because its slice is used
// up (gopreempt_m → globrunqput under gmp) and returns it. Normally called
// after Tick returned true. Executed only by P pid's M; IRQ context.
func (s *Sched) Preempt(pid int) GID {
	return s.requeue(pid, WhyPreempt, TracePreempt, StatPreempt)
}

// Exit ends the G running on P pid and frees its slot (goexit0 + gfput)
// and returns its GID, which may be reused by the next NewProc.
// Executed only by P pid's M.
func (s *Sched) Exit(pid int) GID {
	pp := &s.allp[pid]
	gp := s.dropg(pp, "Exit: no running G")
	pp.stats.add(StatExit, 1)
	s.traceEv(TraceExit, pid, gp, s.allg[gp].runStart)
	s.allg[gp].status.Store(uint32(Gdead))
	s.ngLive.Add(-1)
	s.gfput(gp)
	return gp
}

// requeue moves the running G back to Grunnable through Policy.Enqueue.
func (s *Sched) requeue(pid int, why Why, ev TraceEvent, st Stat) GID {
	pp := &s.allp[pid]
	gp := s.dropg(pp, "requeue: no running G")
	g := &s.allg[gp]
	now := g.runStart // dropg left the stop time here
	g.runnableSince = now
	pp.stats.add(st, 1)
	s.traceEv(ev, pid, gp, now)
	g.status.Store(uint32(Grunnable))
	s.wake(s.policy.Enqueue(s, pid, gp, why))
	return gp
}

// dropg detaches the running G from pp and charges its run time.
// Mirrors dropg plus the accounting the runtime does in execute/schedule.
// On return g.runStart holds the stop time (reused by callers as "now").
func (s *Sched) dropg(pp *P, msg string) GID {
	gp := GID(pp.curg.Load())
	if gp == 0 {
		throw(msg)
	}
	now := s.plat.Now()
	g := &s.allg[gp]
	ran := now - g.runStart
	if ran < 0 {
		ran = 0
	}
	g.runTotal.Add(ran)
	// Weighted virtual time (fair policy): heavier Gs age slower.
	g.vruntime += ran * DefaultWeight / int64(g.weight)
	g.runStart = now
	pp.curg.Store(0)
	s.traceEv(TraceStop, int(pp.id), gp, now)
	return gp
}

// execute makes gp the running G of pp. If inheritTime, gp continues the
// current slice (it came from runnext) and schedtick is not bumped.
// Mirrors execute. Executed only by the owner P.
func (s *Sched) execute(pp *P, gp GID, inheritTime bool, now int64) {
	g := &s.allg[gp]
	if !g.status.CompareAndSwap(uint32(Grunnable), uint32(Grunning)) {
		throw("execute: G is not runnable")
	}
	if !inheritTime {
		pp.schedtick++
		pp.sliceStart = now
	}
	if w := now - g.runnableSince; w > 0 {
		g.waitTotal.Add(w)
	}
	g.runStart = now
	g.lastP.Store(pp.id)
	g.nrun.Add(1)
	pp.curg.Store(uint32(gp))
	pp.stats.add(StatCtxSwitch, 1)
	s.traceEv(TraceRun, int(pp.id), gp, now)
}

// Tick is the timer-interrupt hook for P pid: it reports whether the running
// G must be preempted (Policy.Tick: under gmp, it has used its 10 ms slice,
// counting the part inherited through runnext), and polls the network if
// nobody has for PollInterval (sysmon's "poll network if not polled for more
// than 10ms"). Mirrors sysmon's retake/preemptone, run per core instead of
// on a monitor thread. Executed only by P pid's M; IRQ context.
func (s *Sched) Tick(pid int, now int64) bool {
	pp := &s.allp[pid]
	if s.poller != nil && now-s.lastpoll.Load() >= s.pollInterval {
		if gp := s.pollOnce(pp, false, now); gp != 0 {
			s.injectOne(pp, gp)
		}
	}
	return s.TickNoPoll(pid, now)
}

// TickNoPoll is Tick without the network poll, for a platform that may not
// poll from this timer interrupt (the kernel's, when it runs without its big
// lock, which its Poller needs): the poll and its interval are left for the
// next Tick. Executed only by P pid's M; IRQ context.
func (s *Sched) TickNoPoll(pid int, now int64) bool {
	pp := &s.allp[pid]
	gp := GID(pp.curg.Load())
	if gp == 0 {
		return false
	}
	return s.policy.Tick(s, pid, gp, now, pp.sliceStart, now-s.allg[gp].runStart)
}

// PreemptAt is when Tick on P pid may first report that the G running there
// must be preempted (Policy.TickAt): the platform arms its timer for that
// moment rather than every few milliseconds, as Linux's hrtick programs the
// end of the running task's slice. 0 if no G runs. Executed only by P pid's M.
func (s *Sched) PreemptAt(pid int) int64 {
	pp := &s.allp[pid]
	gp := GID(pp.curg.Load())
	if gp == 0 {
		return 0
	}
	return s.policy.TickAt(s, pid, gp, pp.sliceStart, s.allg[gp].runStart)
}

// gfget takes a free G slot and leaves it Gdead — off the free list, on no
// queue, not yet live — for the caller to set up and then make Gwaiting
// (NewG) or Grunnable (StartG): the runtime's newproc1 keeps a new g _Gdead
// until it is ready to run, for the same reason. (It used to hand the slot
// out Grunnable while it sat on no queue, against invariant 1.) Mirrors gfget
// (one global free list instead of per-P caches: Gs are created far less
// often than goroutines).
func (s *Sched) gfget() GID {
	s.gFreeLock.lock()
	gp := s.listPop(&s.gFree)
	s.gFreeLock.unlock()
	if gp == 0 {
		return 0
	}
	if !s.allg[gp].status.CompareAndSwap(uint32(Gidle), uint32(Gdead)) {
		throw("gfget: free G not idle")
	}
	for {
		hi := s.gHigh.Load()
		if uint32(gp) <= hi || s.gHigh.CompareAndSwap(hi, uint32(gp)) {
			return gp
		}
	}
}

// gfput returns a dead G's slot to the front of the free list (LIFO, like
// the runtime's per-P gFree): the next NewProc reuses the warmest slot and
// GIDs stay below the peak number of live Gs (gHigh).  Mirrors gfput.
func (s *Sched) gfput(gp GID) {
	if !s.allg[gp].status.CompareAndSwap(uint32(Gdead), uint32(Gidle)) {
		throw("gfput: G not dead")
	}
	s.gFreeLock.lock()
	s.listPushFront(&s.gFree, gp)
	s.gFreeLock.unlock()
}
