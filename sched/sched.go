// Sched: the scheduler instance, its configuration and read-only accessors.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "sync/atomic"

// Error is the scheduler's error type. A string type (not errors.New) so that
// the error values are constants: no package init() and no allocation.
type Error string

func (e Error) Error() string { return string(e) }

const (
	ErrNoPlatform = Error("sched: Config.Platform is nil")
	ErrBadNP      = Error("sched: Config.NP must be between 1 and MaxP (64)")
	ErrNoPolicy   = Error("sched: unknown policy name (want gmp, global, local or fair)")
	ErrBadSlice   = Error("sched: Config.Slice must not be negative")
)

// Defaults, mirroring the runtime's constants.
const (
	// DefaultSlice is the time slice: runtime forcePreemptNS = 10 ms.
	DefaultSlice = 10_000_000
	// DefaultPollInterval: sysmon polls the network at least every 10 ms.
	DefaultPollInterval = 10_000_000
	// DefaultRunnextGrace: a thief leaves runnext alone until it has sat
	// there this long. runqgrab does usleep(3) instead; a non-blocking
	// scheduler compares timestamps.
	DefaultRunnextGrace = 3_000
	// DefaultWeight is a G's fair-policy weight (Linux nice 0 = 1024).
	DefaultWeight = 1024
	// DefaultWakeGrain: under gmp, a G waiting in runnext preempts the running G once that
	// has run this long (policy_gmp.go Tick). Linux's sysctl_sched_wakeup_granularity's base,
	// 1 ms; the runtime has no such constant (its readied goroutines wait for the slice).
	DefaultWakeGrain = 1_000_000
)

// Config configures a Sched. Zero fields take the defaults.
type Config struct {
	NP           int       // number of Ps, 1..MaxP
	Policy       Policy    // if nil, PolicyName selects one
	PolicyName   string    // "" = "gmp"; see PolicyByName
	Platform     Platform  // required
	Poller       Poller    // optional device poller (the kernel: its network poller; see Poller)
	Trace        TraceFunc // optional event hook
	Slice        int64     // ns, default DefaultSlice
	PollInterval int64     // ns, default DefaultPollInterval
	RunnextGrace int64     // ns, default DefaultRunnextGrace; <0 means 0
	WakeGrain    int64     // ns, default DefaultWakeGrain; <0: a woken G waits for the slice
	Seed         uint64    // steal-order randomness (deterministic per seed)
	// Timer is the optional TimerPlatform. If nil, Init checks whether
	// Platform implements it — an interface type assertion, which may
	// allocate (the runtime's itab and type-assertion caches), so the
	// kernel, whose Init runs before the Go runtime exists, sets Timer
	// explicitly.
	Timer TimerPlatform
}

// Sched is one scheduler instance: G table, Ps, global queue, idle set.
// Mirrors runtime2.go's schedt plus allg/allp. It is designed to be a
// statically allocated value (var S sched.Sched): all storage is fixed-size
// arrays inside it, and Init allocates nothing.
type Sched struct {
	// Immutable after Init:
	np           int32
	policy       Policy
	plat         Platform
	timer        TimerPlatform // plat, if it implements TimerPlatform
	poller       Poller
	trace        TraceFunc
	slice        int64
	pollInterval int64
	runnextGrace int64
	wakeGrain    int64 // 0: off (Config.WakeGrain < 0)

	// Protected by gFreeLock: the free G slots (runtime sched.gFree).
	gFreeLock spinlock
	gFree     gList

	// Protected by grqLock: the global run queue (runtime sched.runq).
	// grqSize mirrors grq.size for lock-free emptiness checks.
	grqLock spinlock
	grq     gList
	grqSize atomic.Int32

	// Atomic:
	pidle      atomic.Uint64 // bit i set: P i is idle (runtime idlepMask + pidle list); npidle = popcount
	nmspinning atomic.Int32  // Ms spinning (runtime sched.nmspinning)
	ngLive     atomic.Int32  // Gs not Gidle
	gHigh      atomic.Uint32 // highest GID ever handed out (bounds table walks)
	lastpoll   atomic.Int64  // Now() of the last Poller.Poll (runtime sched.lastpoll)
	pollLock   atomic.Bool   // one poller caller at a time (runtime netpoll is single-caller per M)

	// Tables (index 0 of allg is the "no G" sentinel and never used).
	allg [MaxG]G
	allp [MaxP]P

	// Scratch for CheckInvariants (kept here so it allocates nothing).
	checkSeen [MaxG]uint8
}

// Init (re)initialises s in place. It allocates nothing and needs no package
// init(), so the kernel calls it at boot on a statically allocated Sched
// (with Config.Timer set explicitly if it has one: the fallback type
// assertion on Config.Platform is for hosted callers only).
// All Gs are freed; all Ps start running (not idle) with no current G.
// Not safe to call concurrently with anything else on s.
func (s *Sched) Init(cfg Config) error {
	if cfg.Platform == nil {
		return ErrNoPlatform
	}
	if cfg.NP < 1 || cfg.NP > MaxP {
		return ErrBadNP
	}
	if cfg.Slice < 0 {
		return ErrBadSlice
	}
	pol := cfg.Policy
	if pol == nil {
		pol = PolicyByName(cfg.PolicyName)
		if pol == nil {
			return ErrNoPolicy
		}
	}
	s.np = int32(cfg.NP)
	s.policy = pol
	s.plat = cfg.Platform
	s.timer = cfg.Timer
	if s.timer == nil {
		s.timer, _ = cfg.Platform.(TimerPlatform)
	}
	s.poller = cfg.Poller
	s.trace = cfg.Trace
	s.slice = orDefault(cfg.Slice, DefaultSlice)
	s.pollInterval = orDefault(cfg.PollInterval, DefaultPollInterval)
	s.wakeGrain = max(orDefault(cfg.WakeGrain, DefaultWakeGrain), 0)
	s.runnextGrace = cfg.RunnextGrace
	if s.runnextGrace == 0 {
		s.runnextGrace = DefaultRunnextGrace
	} else if s.runnextGrace < 0 {
		s.runnextGrace = 0
	}

	s.gFreeLock.key.Store(0)
	s.gFree = gList{}
	s.grqLock.key.Store(0)
	s.grq = gList{}
	s.grqSize.Store(0)
	s.pidle.Store(0)
	s.nmspinning.Store(0)
	s.ngLive.Store(0)
	s.gHigh.Store(0)
	s.lastpoll.Store(s.plat.Now())
	s.pollLock.Store(false)

	// Free list in ascending GID order so that the first G is GID 1.
	for i := 1; i < MaxG; i++ {
		gp := &s.allg[i]
		gp.id = GID(i)
		gp.status.Store(uint32(Gidle))
		gp.schedlink = 0
		gp.lastP.Store(-1)
		gp.runnableSince, gp.runStart = 0, 0
		gp.weight, gp.vruntime, gp.deadline = DefaultWeight, 0, 0
		gp.runTotal.Store(0)
		gp.waitTotal.Store(0)
		gp.nrun.Store(0)
		s.listPushBack(&s.gFree, GID(i))
	}
	seed := cfg.Seed
	for i := range s.allp {
		pp := &s.allp[i]
		pp.id = int32(i)
		pp.runqhead.Store(0)
		pp.runqtail.Store(0)
		for j := range pp.runq {
			pp.runq[j].Store(0)
		}
		pp.runnext.Store(0)
		pp.runnextSince.Store(0)
		pp.curg.Store(0)
		pp.schedtick = 0
		pp.sliceStart = 0
		pp.retryAt = 0
		seed = splitmix64(seed)
		pp.rand = seed | 1
		pp.spinning.Store(false)
		pp.parked.Store(false)
		pp.lock.key.Store(0)
		pp.list = gList{}
		pp.minVR, pp.sumW = 0, 0
		for j := range pp.stats {
			pp.stats[j].Store(0)
		}
	}
	s.policy.Init(s)
	return nil
}

func orDefault(v, d int64) int64 {
	if v == 0 {
		return d
	}
	return v
}

// splitmix64 derives per-P random seeds from Config.Seed.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	z := x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// cheaprand returns a pseudo-random number from P pp's xorshift state.
// Mirrors runtime.cheaprand (owner P only).
func (pp *P) cheaprand() uint32 {
	x := pp.rand
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	pp.rand = x
	return uint32(x >> 32)
}

// NP returns the number of Ps.
func (s *Sched) NP() int { return int(s.np) }

// Policy returns the active policy.
func (s *Sched) Policy() Policy { return s.policy }

// Curg returns the G running on P pid, or 0.
func (s *Sched) Curg(pid int) GID { return GID(s.allp[pid].curg.Load()) }

// Status returns gp's state.
func (s *Sched) Status(gp GID) GStatus { return GStatus(s.allg[gp].status.Load()) }

// Info returns a copy of gp's accounting.
func (s *Sched) Info(gp GID) GInfo {
	g := &s.allg[gp]
	return GInfo{
		ID:        gp,
		Status:    GStatus(g.status.Load()),
		LastP:     int(g.lastP.Load()),
		RunTotal:  g.runTotal.Load(),
		WaitTotal: g.waitTotal.Load(),
		Runs:      g.nrun.Load(),
		Weight:    g.weight,
	}
}

// Stat reads counter st of P pid.
func (s *Sched) Stat(pid int, st Stat) uint64 { return s.allp[pid].stats.Get(st) }

// Total sums counter st over all Ps.
func (s *Sched) Total(st Stat) uint64 {
	var t uint64
	for i := 0; i < int(s.np); i++ {
		t += s.allp[i].stats.Get(st)
	}
	return t
}

// Live returns the number of Gs that exist (not free).
func (s *Sched) Live() int { return int(s.ngLive.Load()) }

// GRQLen returns the length of the global run queue (racy snapshot).
func (s *Sched) GRQLen() int { return int(s.grqSize.Load()) }

// RunqLen returns the length of P pid's LRQ plus runnext plus its policy
// list (racy snapshot).
func (s *Sched) RunqLen(pid int) int {
	pp := &s.allp[pid]
	n := int(pp.runqtail.Load() - pp.runqhead.Load())
	if pp.runnext.Load() != 0 {
		n++
	}
	pp.lock.lock()
	n += int(pp.list.size)
	pp.lock.unlock()
	return n
}

// RunqEmpty reports whether P pid has nothing to run: RunqLen is 0. The lock-free part is
// runqempty (a G in runnext or the LRQ answers at once); only then is the policy's list looked
// at, under P.lock. The kernel asks on every way out (its tick decision, kernel/timer.go).
func (s *Sched) RunqEmpty(pid int) bool {
	pp := &s.allp[pid]
	if !s.runqempty(pp) {
		return false
	}
	pp.lock.lock()
	n := pp.list.size
	pp.lock.unlock()
	return n == 0
}

// Idle reports whether P pid is idle (parked).
func (s *Sched) Idle(pid int) bool { return s.pidle.Load()&(1<<uint(pid)) != 0 }

// NIdle returns the number of idle Ps.
func (s *Sched) NIdle() int { return int(s.npidle()) }

// Spinning returns the number of spinning Ms.
func (s *Sched) Spinning() int { return int(s.nmspinning.Load()) }

// traceEv emits a trace event if a hook is set.
func (s *Sched) traceEv(ev TraceEvent, pid int, gp GID, now int64) {
	if s.trace != nil {
		s.trace(ev, pid, gp, now)
	}
}
