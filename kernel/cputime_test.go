// Tests of CPU-time accounting: steal, and the expiry caches of CPU timers.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "testing"

// TestUserTime: user time runs from the resume to the way into the kernel, but not past the
// core's timer deadline and its slack — the rest is steal (cputime.go, "Steal").
func TestUserTime(t *testing.T) {
	for _, c := range []struct{ since, entry, until, want int64 }{
		{1000, 1500, 0, 500},                               // deadline unknown (boot): all of it
		{1000, 1500, 2000, 500},                            // a system call before the tick
		{1000, 2000 + stealSlack, 2000, 1000 + stealSlack}, // the tick, a little late
		{1000, 50_000_000, 2000, 1000 + stealSlack},        // the vCPU did not run for 50 ms
		{5000, 50_000_000, 2000, stealSlack - 3000},        // resumed just before an overdue timer
		{300_000, 50_000_000, 1, 0},                        // resumed long after it: nothing
	} {
		if got := userTime(c.since, c.entry, c.until); got != c.want {
			t.Errorf("userTime(%d, %d, %d) = %d, want %d", c.since, c.entry, c.until, got, c.want)
		}
	}
}

// FuzzUserTimeMonotonic: a clock read while a thread runs on another core adds
// userTime(since, now, until); what that core charges later — user time up to its way in at
// entry ≤ now, then system time up to its way out at exit ≥ now — is never less, so CPU clocks
// do not go back (cputime.go, running).
func FuzzUserTimeMonotonic(f *testing.F) {
	f.Add(int64(1000), int64(3000), int64(2000), int64(2500), int64(4000))
	f.Add(int64(1000), int64(90_000_000), int64(2000), int64(50_000_000), int64(90_000_001))
	f.Fuzz(func(t *testing.T, since, now, until, entry, exit int64) {
		if since < 0 || until < 0 || since >= 1<<60 || until >= 1<<60 || now >= 1<<60 ||
			!(since <= entry && entry <= now && now <= exit) {
			return
		}
		read := userTime(since, now, until)
		charged := userTime(since, entry, until) + (exit - entry)
		if charged < read {
			t.Fatalf("since %d until %d: read %d at %d, charged %d (entry %d, exit %d)", since, until, read, now, charged, entry, exit)
		}
	})
}

// TestExpiryCache: the per-owner cache keeps the earliest expiry per clock kind and says when a
// sample has reached one: the only work a charge does when no timer is due.
func TestExpiryCache(t *testing.T) {
	var e expiryCache
	c := cpuTimes{user: 100, sys: 50}
	if e.expired(&c) {
		t.Fatal("empty cache expired")
	}
	e.lower(cpuclockVirt, 120)
	e.lower(cpuclockVirt, 200)
	if e[cpuclockVirt] != 120 || e.expired(&c) {
		t.Fatalf("virt 120 at user 100: %v, expired %v", e, e.expired(&c))
	}
	e.lower(cpuclockSched, 150) // run time 150: due
	if !e.expired(&c) {
		t.Fatal("sched 150 at 100+50 not expired")
	}
	if c.sample(cpuclockProf) != 150 || c.sample(cpuclockVirt) != 100 || c.sample(cpuclockSched) != 150 {
		t.Fatal("samples")
	}
}

// TestChargeUserPickedIdle: a thread that an idle core's wake-up picked without the BKL and
// then handed to trapBKL (wake_unlocked.go) has not run: the trap charges it nothing, neither
// user time from the idle stretch nor, later, the wait for the BKL as system time.
func TestChargeUserPickedIdle(t *testing.T) {
	const gp = 7
	saved := acct[0]
	defer func() { threads[gp], cpus[0], acct[0] = Thread{}, cpuState{}, saved }()
	threads[gp] = Thread{}
	cpus[0] = cpuState{}
	cpus[0].cur, cpus[0].pickedIdle = gp, true
	acct[0].g, acct[0].since, acct[0].until = 0, 1_000, 0
	chargeUser(0, 5_000_000)
	if u := threads[gp].cpu.user; u != 0 {
		t.Errorf("the picked thread was charged %d ns of user time for the core's idle stretch", u)
	}
	if acct[0].g != 0 || cpus[0].pickedIdle {
		t.Errorf("after the charge: acct.g %d (want 0: nobody), pickedIdle %v (want cleared)", acct[0].g, cpus[0].pickedIdle)
	}
	cpus[0].pickedIdle = false // a thread that did run is charged as before
	acct[0].since = 5_000_000
	chargeUser(0, 5_000_500)
	if u := threads[gp].cpu.user; u != 500 {
		t.Errorf("a running thread's user time: %d ns, want 500", u)
	}
}
