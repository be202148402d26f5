// Idle Ps, spinning Ms and wakep: "Worker thread parking/unparking".
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "math/bits"

// npidle returns the number of idle Ps (runtime sched.npidle).
func (s *Sched) npidle() int32 { return int32(bits.OnesCount64(s.pidle.Load())) }

// pidleput publishes pp as idle. Mirrors pidleput (the idle set is a bit
// mask, since each P keeps its own M: see "Ms and cores" in doc.go).
// Executed only by the owner P.
func (s *Sched) pidleput(pp *P) {
	pp.parked.Store(true)
	s.pidle.Or(1 << uint(pp.id))
}

// pidleClear takes P pid off the idle set; reports whether it was idle.
// Whoever clears the bit owns the wake-up of that P (see unpark).
func (s *Sched) pidleClear(pid int) bool {
	bit := uint64(1) << uint(pid)
	if s.pidle.Load()&bit == 0 {
		return false // common case: a plain load keeps the shared word's cache line clean
	}
	return s.pidle.And(^bit)&bit != 0
}

// pidleget claims some idle P for a wake-up and returns its id, or -1.
// Mirrors pidleget. Can be executed by any P.
func (s *Sched) pidleget() int {
	for {
		m := s.pidle.Load()
		if m == 0 {
			return -1
		}
		pid := bits.TrailingZeros64(m)
		if s.pidle.CompareAndSwap(m, m&^(1<<uint(pid))) {
			return pid
		}
	}
}

// unpark is run by a parked P's own core when it runs scheduler code again
// (Schedule, an interrupt that readies a G, findRunnable's re-check). If
// the P clears its own idle bit, it simply resumes. If the bit is already
// clear, a waker claimed the P (wakep or a policy's wake hint) and counted
// it in nmspinning before doing so: the P adopts that spinning reservation
// here. The claimer never writes the P's spinning flag, so there is no
// window in which the count and the flags disagree from the P's point of
// view. Reports whether the P was claimed. Executed only by the owner P.
func (s *Sched) unpark(pp *P, now int64) (claimed bool) {
	if !pp.parked.Load() {
		return false
	}
	pp.parked.Store(false)
	if s.pidleClear(int(pp.id)) {
		return false
	}
	pp.spinning.Store(true)
	pp.stats.add(StatSpinStart, 1)
	s.traceEv(TraceSpin, int(pp.id), 0, now)
	return true
}

// pWake returns P pid after unparking it: a core running NewProc or Ready on
// behalf of its P (e.g. an interrupt on a halted core) is awake, and will
// call Schedule when the handler ends.
func (s *Sched) pWake(pid int) *P {
	pp := &s.allp[pid]
	if pp.parked.Load() {
		s.unpark(pp, s.plat.Now())
	}
	return pp
}

// becomeSpinning marks pp's M as spinning (looking for work to steal).
func (s *Sched) becomeSpinning(pp *P, now int64) {
	pp.spinning.Store(true)
	s.nmspinning.Add(1)
	pp.stats.add(StatSpinStart, 1)
	s.traceEv(TraceSpin, int(pp.id), 0, now)
}

// resetspinning ends spinning after pp found work. If it was the last
// spinning M, another one is woken so that the next piece of work is not
// left to wait: the wake-up policy is deliberately conservative (one
// spinner at a time), so each spinner that succeeds hands the job on.
// Mirrors resetspinning.
func (s *Sched) resetspinning(pp *P) {
	if !pp.spinning.Load() {
		return
	}
	pp.spinning.Store(false)
	if s.nmspinning.Add(-1) < 0 {
		throw("resetspinning: negative nmspinning")
	}
	s.wakep()
}

// wakep tries to wake one idle P's M to look for work, if no M is spinning
// already. Mirrors wakep + startm(pp, spinning=true): the nmspinning slot is
// reserved (CAS 0→1) before the P is claimed, so concurrent wakeps do not
// wake a second core for one G; the woken P adopts the reservation (unpark).
// Can be executed by any P; IRQ context.
func (s *Sched) wakep() {
	// Be conservative about spinning threads, only start one if none exist
	// already.
	if s.nmspinning.Load() != 0 || !s.nmspinning.CompareAndSwap(0, 1) {
		return
	}
	pid := s.pidleget()
	if pid < 0 {
		s.nmspinning.Add(-1)
		return
	}
	s.allp[pid].stats.add(StatWakep, 1)
	s.traceEv(TraceWake, pid, 0, s.plat.Now())
	s.plat.WakeM(pid)
}

// wake acts on a Policy.Enqueue wake hint.
func (s *Sched) wake(hint int) {
	switch {
	case hint == WakeAny:
		s.wakep()
	case hint >= 0 && hint < int(s.np):
		if s.pidle.Load()&(1<<uint(hint)) == 0 {
			return // running, or already claimed
		}
		// Same protocol as wakep, minus the one-spinner rule: the named P
		// is the only one that can run the G.
		s.nmspinning.Add(1)
		if !s.pidleClear(hint) {
			s.nmspinning.Add(-1)
			return
		}
		s.allp[hint].stats.add(StatWakep, 1)
		s.traceEv(TraceWake, hint, 0, s.plat.Now())
		s.plat.WakeM(hint)
	}
}
