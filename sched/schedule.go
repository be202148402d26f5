// One round of scheduling: schedule, findRunnable and the poller calls.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// Schedule finds the next G for P pid and makes it the running G. It returns
// the G and whether it inherits the current time slice (it came from
// runnext), or 0 if there is nothing to run: P pid is then idle,
// Platform.ParkM(pid) has been called, and the caller halts the core until
// an interrupt and then calls Schedule(pid) again.
//
// Mirrors schedule + findRunnable + execute, non-blocking: where the
// runtime's stopm sleeps on a note, Schedule returns and the platform
// blocks (kernel: sti; hlt, so an IPI sent between the idle check and the
// halt is not lost; simulator: no event until WakeM).
// Executed only by P pid's M, with no G running on it. IRQ or g0 context.
func (s *Sched) Schedule(pid int) (gp GID, inheritTime bool) {
	pp := &s.allp[pid]
	if pp.curg.Load() != 0 {
		throw("schedule: P has a running G")
	}
	now := s.plat.Now()
	s.unpark(pp, now) // this core is awake, so its P is not idle
	gp, inheritTime, now = s.findRunnable(pp, now)
	if gp == 0 {
		return 0, false
	}
	s.execute(pp, gp, inheritTime, now)
	return gp, inheritTime
}

// findRunnable finds a runnable G for pp: Policy.PickNext (local queues and
// the GRQ), the poller (non-blocking), stealing while spinning, and finally
// going idle with a last re-check and, for the last P, a blocking poll.
// Returns 0 with pp published idle and ParkM called, and the current time
// (later than now after a blocking poll).
// Mirrors findRunnable. Executed only by the owner P.
func (s *Sched) findRunnable(pp *P, now int64) (gp GID, inheritTime bool, rnow int64) {
	pid := int(pp.id)
	retries := 0
	pp.retryAt = 0
top:
	// local runq, runnext, GRQ (every 61st schedtick first: policy's job)
	if gp, inheritTime = s.policy.PickNext(s, pid); gp != 0 {
		s.resetspinning(pp)
		return gp, inheritTime, now
	}

	// Poll network. This is only an optimization before we resort to
	// stealing: a G woken by I/O runs here without waiting for a tick.
	if s.poller != nil && s.poller.Waiters() {
		if gp = s.pollOnce(pp, false, now); gp != 0 {
			s.resetspinning(pp)
			return gp, false, now
		}
	}

	// Spinning Ms: steal work from other Ps.
	//
	// Limit the number of spinning Ms to half the number of busy Ps.
	// This is necessary to prevent excessive CPU consumption when
	// NP > 1 but the program parallelism is low.
	if pp.spinning.Load() || 2*s.nmspinning.Load() < s.np-s.npidle() {
		if !pp.spinning.Load() {
			s.becomeSpinning(pp, now)
		}
		if gp = s.policy.Steal(s, pid); gp != 0 {
			s.resetspinning(pp)
			return gp, false, now
		}
	}

	// Nothing: go idle. See "Delicate dance" in doc.go: publish the P as
	// idle first, then drop spinning, then re-check every queue. A G
	// submitted concurrently either sees us idle (and wakep sends us a
	// WakeM) or is seen by our re-check.
	wasSpinning := pp.spinning.Load()
	s.pidleput(pp)
	if wasSpinning {
		pp.spinning.Store(false)
		if s.nmspinning.Add(-1) < 0 {
			throw("findRunnable: negative nmspinning")
		}
	}
	if s.policy.HasWork(s, pid) && retries < maxRecheck {
		// Take the P back and steal, spinning even past the limit (as
		// the runtime does here). If a waker claimed this P meanwhile,
		// unpark adopts the spinning slot it reserved.
		retries++
		if !s.unpark(pp, now) {
			s.becomeSpinning(pp, now)
		}
		goto top
	}

	// The last P to go idle blocks in the poller (findRunnable's
	// blocking netpoll), if any G waits for I/O.
	if s.poller != nil && s.poller.Waiters() && s.npidle() == s.np {
		gp = s.pollOnce(pp, true, now)
		now = s.plat.Now() // the poll may have blocked
		if gp != 0 {
			if s.unpark(pp, now) {
				s.resetspinning(pp)
			}
			return gp, false, now
		}
		if s.policy.HasWork(s, pid) && retries < maxRecheck {
			retries++
			if !s.unpark(pp, now) {
				s.becomeSpinning(pp, now)
			}
			goto top
		}
	}

	pp.stats.add(StatIdle, 1)
	s.traceEv(TraceIdle, pid, 0, now)
	s.plat.ParkM(pid)
	if pp.retryAt != 0 && s.timer != nil {
		s.timer.WakeMAt(pid, pp.retryAt)
	}
	return 0, false, now
}

// maxRecheck bounds findRunnable's idle re-check loop. HasWork may see work
// that Steal cannot take yet (a runnext G younger than RunnextGrace, or a
// G in flight between two queues); time does not advance inside one call
// in the simulator, so without a bound the loop could spin for ever. Such a
// G is left to its own P, which runs it at its next schedule (at the latest
// when its slice ends).
const maxRecheck = 3

// pollOnce calls the Poller once (one caller at a time) and makes every G it
// returns runnable: the first is returned for the caller to run or inject,
// the rest go through Policy.Enqueue(WhyPoll) with wakeups (injectglist).
// Each is traced as TracePollReady on the polling P, at the poll's time.
// Returns 0 if the poller is busy or had nothing.
func (s *Sched) pollOnce(pp *P, block bool, now int64) GID {
	if !s.pollLock.CompareAndSwap(false, true) {
		return 0
	}
	n := s.poller.Poll(block, pp.pollBuf[:])
	s.lastpoll.Store(now)
	s.pollLock.Store(false)
	if n <= 0 {
		return 0
	}
	if n > len(pp.pollBuf) {
		throw("pollOnce: Poller returned too many Gs")
	}
	pp.stats.add(StatPoll, 1)
	pp.stats.add(StatPollG, uint64(n))
	if block {
		now = s.plat.Now()
	}
	first := GID(0)
	for i := 0; i < n; i++ {
		gp := pp.pollBuf[i]
		g := &s.allg[gp]
		g.runnableSince = now
		if !g.status.CompareAndSwap(uint32(Gwaiting), uint32(Grunnable)) {
			throw("pollOnce: Poller returned a G that is not waiting")
		}
		s.traceEv(TracePollReady, int(pp.id), gp, now)
		if first == 0 {
			first = gp
			continue
		}
		s.wake(s.policy.Enqueue(s, int(pp.id), gp, WhyPoll))
	}
	return first
}

// injectOne queues a poller G found from Tick (a G is running, so it cannot
// run at once). Mirrors injectglist for one G.
func (s *Sched) injectOne(pp *P, gp GID) {
	s.wake(s.policy.Enqueue(s, int(pp.id), gp, WhyPoll))
}
