// Whole-state consistency check, for tests and the simulator.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// Errors reported by CheckInvariants.
const (
	ErrGTwice       = Error("sched: a G is on two queues (or running and queued)")
	ErrGLost        = Error("sched: a runnable or running G is on no queue")
	ErrGQueuedWrong = Error("sched: a waiting, dead or free G is on a run queue")
	ErrCurgStatus   = Error("sched: a P's current G is not Grunning")
	ErrListSize     = Error("sched: a list's size does not match its links")
	ErrLiveCount    = Error("sched: live-G counter does not match the G table")
	ErrSpinCount    = Error("sched: nmspinning does not match the spinning Ps")
	ErrBadGID       = Error("sched: a queue holds an invalid GID")
)

// CheckInvariants walks every queue and the G table and reports the first
// broken invariant of "Invariants" in doc.go, or nil. Each G must be in
// exactly the place its status says. Only meaningful while nothing else
// uses s (the simulator between events, tests); not for the kernel's hot
// paths (it walks the G table up to the highest GID ever used). Allocates
// nothing.
func (s *Sched) CheckInvariants() error {
	seen := &s.checkSeen
	hi := int(s.gHigh.Load())
	for i := 0; i <= hi; i++ {
		seen[i] = 0
	}
	mark := func(gp GID) bool {
		if gp == 0 || int(gp) > hi {
			return false
		}
		seen[gp]++
		return true
	}
	spinning := int32(0)
	for i := int32(0); i < s.np; i++ {
		pp := &s.allp[i]
		// A spinning P counts, and so does a parked P whose idle bit a
		// waker cleared: its spinning slot is reserved until it resumes.
		if pp.spinning.Load() || pp.parked.Load() && s.pidle.Load()&(1<<uint(i)) == 0 {
			spinning++
		}
		if gp := GID(pp.curg.Load()); gp != 0 {
			if !mark(gp) {
				return ErrBadGID
			}
			if s.Status(gp) != Grunning {
				return ErrCurgStatus
			}
		}
		if gp := GID(pp.runnext.Load()); gp != 0 && !mark(gp) {
			return ErrBadGID
		}
		for h := pp.runqhead.Load(); h != pp.runqtail.Load(); h++ {
			if !mark(GID(pp.runq[h%runqSize].Load())) {
				return ErrBadGID
			}
		}
		if err := s.checkList(&pp.list, mark); err != nil {
			return err
		}
	}
	if spinning != s.nmspinning.Load() {
		return ErrSpinCount
	}
	if err := s.checkList(&s.grq, mark); err != nil {
		return err
	}
	if s.grq.size != s.grqSize.Load() {
		return ErrListSize
	}
	live := int32(0)
	for gp := 1; gp <= hi; gp++ {
		switch st := s.Status(GID(gp)); st {
		case Grunnable, Grunning:
			if seen[gp] == 0 {
				return ErrGLost
			}
			if seen[gp] > 1 {
				return ErrGTwice
			}
		default:
			if seen[gp] != 0 {
				return ErrGQueuedWrong
			}
		}
		if st := s.Status(GID(gp)); st != Gidle && st != Gdead {
			live++
		}
	}
	if live != s.ngLive.Load() {
		return ErrLiveCount
	}
	return nil
}

func (s *Sched) checkList(l *gList, mark func(GID) bool) error {
	n := int32(0)
	for gp := l.head; gp != 0; gp = s.allg[gp].schedlink {
		if !mark(gp) {
			return ErrBadGID
		}
		if n++; n > MaxG {
			return ErrListSize // a cycle
		}
	}
	if n != l.size {
		return ErrListSize
	}
	return nil
}
