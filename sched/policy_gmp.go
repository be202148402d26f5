// Policy gmp: Go's own scheduler (the default).
// SPDX-License-Identifier: BSD-3-Clause

package sched

// gmp is the Go runtime's policy, as in runtime/proc.go.
//
// Idea: every P has a private lock-free ring (256 slots) plus a runnext slot;
// a global queue (GRQ) under a spinlock catches overflow, yields and
// preemptions; idle Ps steal half of a busy P's ring. New and readied Gs go
// to runnext and inherit the time slice, so a producer/consumer pair
// ping-pongs on one P with warm caches. Every 61st schedtick the GRQ is
// checked first so that it cannot starve behind two Gs that keep readying
// each other.
//
// Trade-off: the common path touches no shared cache line (great locality
// and throughput), but fairness is only statistical: a G waits for its P or
// for a thief, the order across Ps is not FIFO, and runnext favours
// communicating Gs over CPU-bound ones until the 10 ms slice runs out.
//
// One addition the runtime does not need: wake-up preemption. In the
// runtime a readied goroutine waits in runnext until the running one blocks
// or has used its slice, and sysmon, which notices Ps stuck in system calls
// and goroutines running too long, is a thread of its own that the
// operating system wakes promptly. Here the runtime's threads are the Gs,
// sysmon among them: behind a thread that spins (a goroutine in a long
// system call, a busy loop) sysmon's 20 µs sleep lasted up to the spinner's
// 10 ms slice, and every hand-off it makes waited as long (the bench's
// syscall_preempt: twice Linux's time on one vCPU). So a woken G waiting in
// runnext preempts the running G once that has run WakeGrain (1 ms) of its
// own, as Linux's check_preempt_wakeup does with its wakeup granularity;
// Gs that ready each other and block run far less than that, so a
// producer/consumer pair keeps its P and its shared slice as before.
type gmp struct{}

var gmpPolicy gmp

func (*gmp) Name() string { return "gmp" }

func (*gmp) Init(s *Sched) {}

// Enqueue: New/Ready → runnext (the old runnext goes to the ring tail) and
// wakep; Poll → ring tail, wakep; Yield → ring tail; Gosched/Preempt → GRQ
// and wakep (runtime goschedImpl).
func (*gmp) Enqueue(s *Sched, pid int, gp GID, why Why) int {
	pp := &s.allp[pid]
	switch why {
	case WhyNew, WhyReady:
		s.runqput(pp, gp, true)
		// A woken G may preempt (Tick); a new one may not, even if it reuses the GID of a
		// woken G that has since exited, so the mark is cleared, not left stale.
		woken := gp
		if why == WhyNew {
			woken = 0
		}
		pp.runnextWoken.Store(uint32(woken))
		return WakeAny
	case WhyPoll:
		s.runqput(pp, gp, false)
		return WakeAny
	case WhyYield:
		s.runqput(pp, gp, false)
		return WakeNone
	default: // WhyGosched, WhyPreempt
		s.globrunqput(gp)
		return WakeAny
	}
}

// PickNext is the first half of findRunnable: the 61st-schedtick GRQ check,
// then runnext and the ring (runqget), then a batch from the GRQ
// (globrunqgetbatch: min(len/nP+1, 128) Gs, the rest onto the ring).
func (*gmp) PickNext(s *Sched, pid int) (GID, bool) {
	pp := &s.allp[pid]
	// Check the global runnable queue once in a while to ensure fairness.
	// Otherwise two goroutines can completely occupy the local runqueue
	// by constantly respawning each other.
	if pp.schedtick%61 == 0 && s.grqSize.Load() > 0 {
		if gp := s.globrunqget(); gp != 0 {
			pp.stats.add(StatGRQTake, 1)
			pp.stats.add(StatGRQTick, 1)
			return gp, false
		}
	}
	if gp, inheritTime := s.runqget(pp); gp != 0 {
		if inheritTime {
			pp.stats.add(StatRunnextHit, 1)
		} else {
			pp.stats.add(StatLRQHit, 1)
		}
		return gp, inheritTime
	}
	if gp := s.globrunqgetbatch(pp, runqSize/2); gp != 0 {
		pp.stats.add(StatGRQTake, 1)
		return gp, false
	}
	return 0, false
}

// Steal mirrors stealWork: 4 passes over the other Ps in a random order,
// skipping idle ones; each raid takes half a victim's ring; runnext only on
// the last pass (and only once it has aged runnextGrace).
func (*gmp) Steal(s *Sched, pid int) GID {
	pp := &s.allp[pid]
	pp.retryAt = 0
	np := uint32(s.np)
	if np == 1 {
		return 0
	}
	now := s.plat.Now()
	const stealTries = 4
	for i := 0; i < stealTries; i++ {
		stealRunNextG := i == stealTries-1
		var ord randomOrder
		ord.start(np, pp.cheaprand())
		for ; !ord.done(); ord.next() {
			p2 := &s.allp[ord.position()]
			if p2 == pp {
				continue
			}
			// Don't bother to attempt to steal if p2 is idle.
			if s.pidle.Load()&(1<<uint(p2.id)) != 0 {
				continue
			}
			if gp, n := s.runqsteal(pp, p2, stealRunNextG, now); gp != 0 {
				pp.stats.add(StatSteal, 1)
				pp.stats.add(StatStolenG, uint64(n))
				s.traceEv(TraceSteal, pid, gp, now)
				return gp
			}
		}
	}
	// Nothing. If some busy P's runnext was only too fresh to take, note
	// when it will have aged (runqgrab would usleep(3) and retry).
	for i := int32(0); i < s.np; i++ {
		p2 := &s.allp[i]
		if p2 == pp || p2.runnext.Load() == 0 {
			continue
		}
		if at := p2.runnextSince.Load() + s.runnextGrace; at > now && (pp.retryAt == 0 || at < pp.retryAt) {
			pp.retryAt = at
		}
	}
	return 0
}

// Tick: preempt once the slice (inherited through runnext) is used up.
// Mirrors sysmon retake: "preempt G if it's running on the same schedtick
// for too long". Or once a woken G waits in runnext and the running G has
// run WakeGrain itself (the wake-up preemption above), counted apart.
func (*gmp) Tick(s *Sched, pid int, gp GID, now, sliceStart, ran int64) bool {
	if now-sliceStart >= s.slice {
		return true
	}
	if ran >= s.wakeGrain && wokenWaits(s, pid) {
		s.allp[pid].stats.add(StatWakePreempt, 1)
		return true
	}
	return false
}

// wokenWaits reports whether P pid's runnext holds a G that was woken (not
// a new one: a spawner is not preempted by its children, as Linux places a
// new task after the running one) with no other P to take it — none idle,
// none spinning (Ready's wakep has started one if there was, and it will
// steal the G; Linux too sends a wakee to an idle CPU rather than preempt,
// select_idle_sibling) — and the wake-up preemption is on.
func wokenWaits(s *Sched, pid int) bool {
	pp := &s.allp[pid]
	rn := pp.runnext.Load()
	return s.wakeGrain > 0 && rn != 0 && rn == pp.runnextWoken.Load() &&
		s.npidle() == 0 && s.nmspinning.Load() == 0
}

// TickAt: when the slice runs out, or, while a woken G waits in runnext,
// when the running G will have run WakeGrain (the platform asks again after
// a Ready on this P; a moment already past: as soon as the platform lets the
// running G be preempted, kernel/timer.go minRunNS). Like Tick it reads the
// idle and spinning Ps, which other cores change without asking this one
// again: a P that was spinning when the timer was armed may take other work
// and leave the woken G to the slice's end, and a P that goes idle meanwhile
// makes the armed tick preempt nobody. Both are bounded by the slice.
func (*gmp) TickAt(s *Sched, pid int, gp GID, sliceStart, runStart int64) int64 {
	at := sliceStart + s.slice
	if wokenWaits(s, pid) {
		at = min(at, runStart+s.wakeGrain)
	}
	return at
}

// HasWork: the GRQ, any P's ring, or a runnext old enough to be stolen is
// non-empty (the re-check of findRunnable's "Delicate dance"). A fresh
// runnext is its owner's: that P is running and will take it itself.
func (*gmp) HasWork(s *Sched, pid int) bool {
	if s.grqSize.Load() > 0 {
		return true
	}
	now := s.plat.Now()
	for i := int32(0); i < s.np; i++ {
		p2 := &s.allp[i]
		if p2.runqlen() != 0 {
			return true
		}
		if p2.runnext.Load() != 0 && (int(i) == pid || now-p2.runnextSince.Load() >= s.runnextGrace) {
			return true
		}
	}
	return false
}

// randomOrder enumerates 0..n-1 in a pseudo-random order: start at a random
// position and step by a random increment coprime with n. Mirrors the
// runtime's randomOrder/randomEnum, computing the coprime on the fly instead
// of from a table built at start-up (no allocation, no init).
type randomOrder struct {
	count, pos, inc, i uint32
}

func (o *randomOrder) start(n, r uint32) {
	o.count, o.i = n, 0
	o.pos = r % n
	inc := (r/n)%n + 1
	for gcd(inc, n) != 1 {
		inc++
		if inc > n {
			inc = 1
		}
	}
	o.inc = inc
}

func (o *randomOrder) done() bool       { return o.i == o.count }
func (o *randomOrder) position() uint32 { return o.pos }
func (o *randomOrder) next() {
	o.i++
	o.pos = (o.pos + o.inc) % o.count
}

func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
