package simulator

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"strings"

	"gmpos/sched"
)

// The engine: N simulated cores driving one sched.Sched in virtual time.
//
// Each core is an M bound to its P (as in the kernel). A core is in one of
// three states:
//
//	coreSched:   an evCoreSched event is pending; when it fires the core
//	             calls Sched.Schedule for its P;
//	coreRunning: a G is running; its next evBurstEnd (and the periodic
//	             evTick) are pending;
//	coreParked:  Schedule returned 0 (ParkM); the core is halted until an
//	             IPI (Platform.WakeM), a device interrupt (packet) or one
//	             of its own timers (a sleeping G's wake-up, WakeMAt).
//
// Every call into the Sched happens "on" one core (e.cur), mirroring the
// rule that each P is driven only by its own M.

// MaxCores is the largest -cores value (one P per core).
const MaxCores = sched.MaxP

// Config describes one simulation run. Zero fields take the defaults.
type Config struct {
	Cores    int // 1..MaxCores
	Seed     uint64
	Workload Workload
	Policy   string // a sched policy name
	Trace    *Trace // if non-nil, the run's slices are added to it

	TickPeriod  Time // timer interrupt period per busy core (default 1 ms)
	WakeLatency Time // IPI / interrupt to a halted core until it runs Schedule (default 5 µs)
	SwitchCost  Time // a G leaving the core until Schedule runs: trap, save, schedule (default 1 µs; <0 means 0)
	Slice       Time // time slice passed to the Sched (default sched.DefaultSlice)
	// WakeGrain is gmp's wake-up preemption granularity passed to the Sched (default
	// sched.DefaultWakeGrain; negative: none, a woken G waits for the slice as in the runtime)
	WakeGrain Time
	TimeLimit Time // virtual time after which the run is abandoned (default 60 s)

	// CheckInvariants runs Sched.CheckInvariants after every event (no G
	// lost or on two queues, counters consistent) and fails the run at
	// the first violation. It walks the whole G table each time, so it is
	// for tests.
	CheckInvariants bool

	// IgnorePreempt makes the simulated timer interrupt ignore the
	// policy's preemption verdict: a broken kernel, used by tests to show
	// that the preemption assertions can fail.
	IgnorePreempt bool
}

const (
	DefaultTickPeriod  = Millisecond
	DefaultWakeLatency = 5 * Microsecond
	DefaultSwitchCost  = Microsecond
	DefaultTimeLimit   = 60 * Second
	maxEvents          = 50_000_000 // hard stop against runaway scripts
	maxInstantOps      = 1_000_000  // zero-time ops in a row before we call it a loop
)

type coreState uint8

const (
	coreSched coreState = iota
	coreRunning
	coreParked
)

type simCore struct {
	state      coreState
	gen        uint64    // bumped whenever the pending sched/burst event is superseded
	g          sched.GID // running G
	runStart   Time      // when the current run (dispatch) began
	burstStart Time      // when the current CPU burst (or its remainder) began
	lastUID    int       // G last run here, for context-switch counting
	busy       Time
	pollBlock  bool // parked in the poller's blocking poll
}

// simG is the simulator's side of a live G, indexed by GID (the Sched
// reuses GIDs; uid is unique per run).
type simG struct {
	uid        int
	label      string
	script     Script
	step       int
	rng        *rand.Rand // this G's own stream (see spawn)
	remaining  Time       // CPU left in the current OpCompute
	runnableAt Time       // when it last became runnable
	tickSnap   uint64     // schedticks (all Ps) when it became runnable
}

// GStat is the per-G outcome of a run, indexed by uid-1.
type GStat struct {
	UID      int
	Label    string
	Created  Time
	Done     bool // it exited
	Exited   Time // when it exited, if Done
	Demand   Time // CPU time its script asked for (sum of OpCompute)
	Run      Time // CPU time received
	Wait     Time // total run-queue wait
	MaxWait  Time // longest single run-queue wait
	MaxTicks uint64
	Runs     int
}

type sem struct {
	count   int
	waiters []sched.GID
}

type engine struct {
	cfg      Config
	s        *sched.Sched
	now      Time
	q        eventQueue
	rng      *rand.Rand
	cores    []simCore
	gs       []simG
	stats    []GStat
	sems     []sem
	poll     fakePoller
	cur      int // core on whose behalf the Sched is being called
	live     int
	events   int
	traceRun int
	res      Result
}

// Run simulates cfg.Workload under cfg.Policy and returns its table row.
func Run(cfg Config) (res Result, err error) {
	if cfg.Cores < 1 || cfg.Cores > MaxCores {
		return res, fmt.Errorf("cores = %d, want 1..%d", cfg.Cores, MaxCores)
	}
	if cfg.Workload.Setup == nil {
		return res, fmt.Errorf("workload %q has no Setup", cfg.Workload.Name)
	}
	if sched.PolicyByName(cfg.Policy) == nil {
		return res, fmt.Errorf("unknown policy %q (have: %s)", cfg.Policy, strings.Join(sched.PolicyNames(), ", "))
	}
	if cfg.TickPeriod <= 0 {
		cfg.TickPeriod = DefaultTickPeriod
	}
	if cfg.WakeLatency <= 0 {
		cfg.WakeLatency = DefaultWakeLatency
	}
	if cfg.SwitchCost == 0 {
		cfg.SwitchCost = DefaultSwitchCost
	} else if cfg.SwitchCost < 0 {
		cfg.SwitchCost = 0
	}
	if cfg.TimeLimit <= 0 {
		cfg.TimeLimit = DefaultTimeLimit
	}
	e := &engine{
		cfg:   cfg,
		s:     new(sched.Sched),
		rng:   rand.New(rand.NewPCG(cfg.Seed, 0x6d706f73)), // setup stream; each G gets its own (spawn)
		cores: make([]simCore, cfg.Cores),
		gs:    make([]simG, sched.MaxG),
	}
	e.poll.e = e
	e.traceRun = -1
	if cfg.Trace != nil {
		e.traceRun = cfg.Trace.addRun(cfg.Workload.Name+"/"+cfg.Policy, cfg.Policy, cfg.Cores)
	}
	e.res = Result{Workload: cfg.Workload.Name, Policy: cfg.Policy, Cores: cfg.Cores, Seed: cfg.Seed,
		Busy: make([]Time, cfg.Cores)}
	// A broken invariant inside the Sched throws (panics with a string):
	// report it as this run's error, with where and when it happened.
	// Anything else (a runtime error in the Sched or the engine) also gets
	// its stack, since the message alone does not say where.
	defer func() {
		if p := recover(); p != nil {
			if msg, ok := p.(string); ok {
				err = fmt.Errorf("t=%s core %d: sched: %s", FormatDuration(e.now), e.cur, msg)
			} else {
				err = fmt.Errorf("t=%s core %d: panic: %v\n%s", FormatDuration(e.now), e.cur, p, debug.Stack())
			}
		}
	}()
	scfg := sched.Config{
		NP: cfg.Cores, PolicyName: cfg.Policy, Platform: e, Poller: &e.poll,
		Slice: cfg.Slice, WakeGrain: cfg.WakeGrain, Seed: cfg.Seed,
	}
	if cfg.Trace != nil {
		scfg.Trace = e.schedEvent
	}
	if err := e.s.Init(scfg); err != nil {
		return res, err
	}
	if err := e.start(); err != nil {
		return res, err
	}
	if err := e.loop(); err != nil {
		return res, err
	}
	return e.finish(), nil
}

// start creates the initial Gs and lets every core enter Schedule at t=0.
func (e *engine) start() error {
	for _, st := range e.cfg.Workload.Setup(e.cfg.Cores, e.rng) {
		if st.Core < 0 || st.Core >= e.cfg.Cores {
			return fmt.Errorf("workload %q starts a G on core %d of %d", e.cfg.Workload.Name, st.Core, e.cfg.Cores)
		}
		e.cur = st.Core
		if err := e.spawn(st.Core, st.G, e.rng.Uint64()); err != nil {
			return err
		}
	}
	if e.live == 0 {
		return fmt.Errorf("workload %q creates no Gs", e.cfg.Workload.Name)
	}
	for c := range e.cores {
		e.schedSoon(c, 0)
		// Per-core LAPIC timers are not synchronised: stagger their phases
		// evenly so that cores do not all preempt in the same instant.
		phase := e.cfg.TickPeriod * Time(c) / Time(e.cfg.Cores)
		e.q.push(event{at: e.cfg.TickPeriod + phase, kind: evTick, core: c})
	}
	return nil
}

func (e *engine) loop() error {
	for e.live > 0 {
		if e.q.real == 0 && e.allParked() {
			return e.stuck()
		}
		ev := e.q.pop()
		if ev.at > e.cfg.TimeLimit {
			e.now = e.cfg.TimeLimit
			return nil // unfinished: Result.Finished stays false
		}
		if e.events++; e.events > maxEvents {
			return fmt.Errorf("more than %d events by t=%s: runaway workload", maxEvents, FormatDuration(e.now))
		}
		e.now = ev.at
		e.cur = ev.core
		var err error
		switch ev.kind {
		case evCoreSched:
			if c := &e.cores[ev.core]; c.state == coreSched && c.gen == ev.gen {
				err = e.schedule(ev.core)
			}
		case evBurstEnd:
			if c := &e.cores[ev.core]; c.state == coreRunning && c.gen == ev.gen {
				e.gs[c.g].remaining = 0
				err = e.advance(ev.core)
			}
		case evTick:
			e.tick(ev.core)
			e.q.push(event{at: e.now + e.cfg.TickPeriod, kind: evTick, core: ev.core})
		case evTimer:
			e.interruptReady(ev.core, sched.GID(ev.g))
		case evPacket:
			e.packet(sched.GID(ev.g))
		case evRetry:
			e.wakeCore(ev.core) // ignored unless the core is still halted
		}
		if err != nil {
			return err
		}
		if e.cfg.CheckInvariants {
			if err := e.s.CheckInvariants(); err != nil {
				return fmt.Errorf("t=%s after %s on core %d: %v", FormatDuration(e.now), ev.kind, ev.core, err)
			}
		}
	}
	return nil
}

// schedSoon makes core c call Schedule after delay, unless it already will.
func (e *engine) schedSoon(c int, delay Time) {
	cc := &e.cores[c]
	cc.state = coreSched
	cc.gen++
	cc.pollBlock = false
	e.q.push(event{at: e.now + delay, kind: evCoreSched, core: c, gen: cc.gen})
}

// wakeCore brings a halted core out of HLT after the wake-up latency.
func (e *engine) wakeCore(c int) {
	if e.cores[c].state == coreParked {
		e.schedSoon(c, e.cfg.WakeLatency)
	}
}

// schedule: core c runs Sched.Schedule for its P.
func (e *engine) schedule(c int) error {
	gp, _ := e.s.Schedule(c)
	cc := &e.cores[c]
	if gp == 0 {
		cc.state = coreParked
		return nil
	}
	sg := &e.gs[gp]
	if sg.uid == 0 {
		return fmt.Errorf("Schedule(%d) returned G%d, which the simulator never created", c, gp)
	}
	st := &e.stats[sg.uid-1]
	w := e.now - sg.runnableAt
	st.Wait += w
	st.MaxWait = max(st.MaxWait, w)
	st.MaxTicks = max(st.MaxTicks, e.schedticks()-sg.tickSnap)
	st.Runs++
	e.res.Waits = append(e.res.Waits, w)
	e.res.Dispatches++
	if cc.lastUID != sg.uid {
		e.res.CtxSwitches++
		cc.lastUID = sg.uid
	}
	cc.state = coreRunning
	cc.g = gp
	cc.runStart = e.now
	return e.advance(c)
}

// advance executes the running G's script from its current position until
// it starts a CPU burst (an evBurstEnd is scheduled) or leaves the core.
func (e *engine) advance(c int) error {
	cc := &e.cores[c]
	gp := cc.g
	sg := &e.gs[gp]
	for n := 0; n < maxInstantOps; n++ {
		if sg.remaining > 0 {
			cc.gen++
			cc.burstStart = e.now
			e.q.push(event{at: e.now + sg.remaining, kind: evBurstEnd, core: c, gen: cc.gen})
			return nil
		}
		op := sg.script(sg.step, sg.rng)
		sg.step++
		switch op.Kind {
		case OpCompute:
			if op.D < 0 {
				return fmt.Errorf("G%d (%s) step %d: negative run time", sg.uid, sg.label, sg.step-1)
			}
			sg.remaining = op.D
			e.stats[sg.uid-1].Demand += op.D
		case OpSpawn:
			if op.Child == nil {
				return fmt.Errorf("G%d (%s) step %d: spawn without a child", sg.uid, sg.label, sg.step-1)
			}
			// The child's stream is seeded from its parent's, so a G's
			// random durations depend on its lineage only, never on the
			// order in which a policy happens to run Gs: every policy
			// gets exactly the same work.
			if err := e.spawn(c, *op.Child, sg.rng.Uint64()); err != nil {
				return err
			}
		case OpSignal:
			sm := e.sem(op.Sem)
			if len(sm.waiters) > 0 {
				w := sm.waiters[0]
				sm.waiters = sm.waiters[1:]
				e.makeRunnable(w, e.now)
				e.s.Ready(w, c) // the waker's P: runnext under gmp
			} else {
				sm.count++
			}
		case OpWait:
			sm := e.sem(op.Sem)
			if sm.count > 0 {
				sm.count--
				continue
			}
			e.stopRun(c, "wait")
			e.s.Park(c)
			sm.waiters = append(sm.waiters, gp)
			e.schedSoon(c, e.cfg.SwitchCost)
			return nil
		case OpSleep:
			e.stopRun(c, "sleep")
			e.s.Park(c)
			// The wake-up is this core's LAPIC timer (the core the G slept on).
			e.q.push(event{at: e.now + max(op.D, 0), kind: evTimer, core: c, g: int(gp)})
			e.schedSoon(c, e.cfg.SwitchCost)
			return nil
		case OpNet:
			e.stopRun(c, "net")
			e.s.Park(c)
			e.poll.waiting++
			e.q.push(event{at: e.now + max(op.D, 0), kind: evPacket, core: c, g: int(gp)})
			e.schedSoon(c, e.cfg.SwitchCost)
			return nil
		case OpGosched:
			e.stopRun(c, "gosched")
			e.makeRunnable(gp, e.now)
			e.s.Gosched(c)
			e.schedSoon(c, e.cfg.SwitchCost)
			return nil
		case OpGoYield:
			e.stopRun(c, "goyield")
			e.makeRunnable(gp, e.now)
			e.s.GoYield(c)
			e.schedSoon(c, e.cfg.SwitchCost)
			return nil
		case OpExit:
			e.stopRun(c, "exit")
			e.stats[sg.uid-1].Exited = e.now
			e.stats[sg.uid-1].Done = true
			e.s.Exit(c)
			*sg = simG{}
			e.live--
			e.res.Makespan = e.now
			e.schedSoon(c, e.cfg.SwitchCost)
			return nil
		default:
			return fmt.Errorf("G%d (%s) step %d: bad op %d", sg.uid, sg.label, sg.step-1, op.Kind)
		}
	}
	return fmt.Errorf("G%d (%s): %d zero-time ops in a row (script never runs, blocks or exits)", sg.uid, sg.label, maxInstantOps)
}

// spawn creates a G on core c's P (NewProc: runnext under gmp) with its
// own random stream seeded by seed.
func (e *engine) spawn(c int, spec GSpec, seed uint64) error {
	if spec.Script == nil {
		return fmt.Errorf("G spec %q has no script", spec.Label)
	}
	gp := e.s.NewProc(c)
	if gp == 0 {
		return fmt.Errorf("G table full (%d Gs alive)", e.live)
	}
	uid := len(e.stats) + 1
	e.stats = append(e.stats, GStat{UID: uid, Label: spec.Label, Created: e.now})
	e.gs[gp] = simG{uid: uid, label: spec.Label, script: spec.Script, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	e.makeRunnable(gp, e.now)
	e.live++
	return nil
}

// makeRunnable stamps when gp became runnable (for its run-queue wait).
func (e *engine) makeRunnable(gp sched.GID, at Time) {
	sg := &e.gs[gp]
	sg.runnableAt = at
	sg.tickSnap = e.schedticks()
}

// schedticks sums the Ps' schedtick-equivalents: picks that started a new
// time slice (every pick except runnext hits, which inherit the slice).
func (e *engine) schedticks() uint64 {
	return e.s.Total(sched.StatCtxSwitch) - e.s.Total(sched.StatRunnextHit)
}

// stopRun ends the running G's current run on core c: accounting and trace.
func (e *engine) stopRun(c int, reason string) {
	cc := &e.cores[c]
	sg := &e.gs[cc.g]
	d := e.now - cc.runStart
	cc.busy += d
	e.stats[sg.uid-1].Run += d
	cc.gen++ // cancels a pending burst end
	if e.traceRun >= 0 {
		e.cfg.Trace.add(e.traceRun, Slice{Core: c, G: sg.uid, Name: "G" + strconv.Itoa(sg.uid) + " " + sg.label,
			Start: cc.runStart, Dur: d, Reason: reason})
	}
}

// tick is the periodic timer interrupt of core c. Halted cores are tickless
// (the kernel stops the LAPIC timer before HLT), so only busy cores tick.
func (e *engine) tick(c int) {
	cc := &e.cores[c]
	if cc.state != coreRunning {
		return
	}
	if !e.s.Tick(c, e.now) || e.cfg.IgnorePreempt {
		return
	}
	sg := &e.gs[cc.g]
	if sg.remaining > 0 {
		sg.remaining -= e.now - cc.burstStart
	}
	gp := cc.g
	e.stopRun(c, "preempt")
	e.res.Preemptions++
	e.makeRunnable(gp, e.now)
	e.s.Preempt(c)
	e.schedSoon(c, e.cfg.SwitchCost)
}

// interruptReady: core c's timer fires for a sleeping G and readies it on
// c's P. A halted core wakes up (and then runs Schedule).
func (e *engine) interruptReady(c int, gp sched.GID) {
	e.makeRunnable(gp, e.now)
	e.s.Ready(gp, c)
	e.wakeCore(c)
}

// packet: a G's virtual packet arrived. The NIC interrupt goes to a halted
// core if there is one (the one blocked in the poller first, then the
// lowest-numbered: IOAPIC lowest-priority delivery), which wakes up and
// polls; if every core is busy, the G waits for a findRunnable or Tick poll.
func (e *engine) packet(gp sched.GID) {
	e.poll.waiting--
	e.poll.ready = append(e.poll.ready, gp)
	e.gs[gp].runnableAt = e.now // the wait until it runs includes the poll delay
	e.gs[gp].tickSnap = e.schedticks()
	target := -1
	for c := range e.cores {
		if e.cores[c].state == coreParked && (target < 0 || e.cores[c].pollBlock) {
			target = c
			if e.cores[c].pollBlock {
				break
			}
		}
	}
	if target >= 0 {
		e.wakeCore(target)
	}
}

// stuck explains why nothing can happen any more: either Gs are runnable
// on some queue while every core is halted (the policy or the wake-up
// protocol lost a wake-up), or every live G is blocked for good.
func (e *engine) stuck() error {
	runnable := 0
	for gp := range e.gs {
		if e.gs[gp].uid != 0 && e.s.Status(sched.GID(gp)) == sched.Grunnable {
			runnable++
		}
	}
	if runnable > 0 {
		return fmt.Errorf("lost wake-up at t=%s: %d Gs runnable but every core is halted and no IPI is pending", FormatDuration(e.now), runnable)
	}
	return fmt.Errorf("deadlock at t=%s: %d Gs alive, all blocked, every core halted and no timer or packet pending (a G waits on a semaphore nobody signals?)",
		FormatDuration(e.now), e.live)
}

// allParked reports whether every core is halted.
func (e *engine) allParked() bool {
	for c := range e.cores {
		if e.cores[c].state != coreParked {
			return false
		}
	}
	return true
}

func (e *engine) sem(i int) *sem {
	for len(e.sems) <= i {
		e.sems = append(e.sems, sem{})
	}
	return &e.sems[i]
}

// finish turns the run's observations into its Result.
func (e *engine) finish() Result {
	r := e.res
	r.Finished = e.live == 0
	if !r.Finished {
		r.Makespan = e.now
		// Close the runs still in progress so utilisation counts them.
		for c := range e.cores {
			if e.cores[c].state == coreRunning {
				e.stopRun(c, "time limit")
			}
		}
	}
	for c := range e.cores {
		r.Busy[c] = e.cores[c].busy
	}
	r.Steals = int(e.s.Total(sched.StatSteal))
	r.GRQTakes = int(e.s.Total(sched.StatGRQTake))
	r.WakePreemptions = int(e.s.Total(sched.StatWakePreempt))
	r.Gs = len(e.stats)
	r.Events = e.events
	r.GStats = e.stats
	shares := make([]float64, 0, len(e.stats))
	for _, st := range e.stats {
		if st.Run+st.Wait > 0 {
			shares = append(shares, float64(st.Run)/float64(st.Run+st.Wait))
		}
	}
	r.Jain = jain(shares)
	return r
}

// schedEvent is the Sched's trace hook: steals, IPIs and idling become
// instants on the core's track (runs are recorded by the engine itself).
func (e *engine) schedEvent(ev sched.TraceEvent, pid int, gp sched.GID, now int64) {
	switch ev {
	case sched.TraceSteal, sched.TraceWake, sched.TraceIdle:
	default:
		return
	}
	uid := 0
	if gp != 0 {
		uid = e.gs[gp].uid
	}
	e.cfg.Trace.addInstant(e.traceRun, Instant{Core: pid, At: now, Name: ev.String(), G: uid})
}

// Platform (sched.Platform) in virtual time.

// Now is the virtual clock.
func (e *engine) Now() int64 { return e.now }

// WakeM models the IPI to a halted core: it runs Schedule after the wake-up
// latency. Spurious wakes (core not halted) are ignored, as the kernel's
// IPI handler would find the core already awake.
func (e *engine) WakeM(pid int) { e.wakeCore(pid) }

// ParkM is a notification; the core's state changes when Schedule returns 0.
func (e *engine) ParkM(pid int) {}

// WakeMAt (sched.TimerPlatform) arms a one-shot timer on core pid: if the
// core is still halted at when, the timer interrupt wakes it (after the
// usual wake-up latency) and it runs Schedule. The Sched uses it to come
// back for a runnext G that was too fresh to steal.
func (e *engine) WakeMAt(pid int, when int64) {
	e.q.push(event{at: max(when, e.now), kind: evRetry, core: pid})
}

// fakePoller is the network poller: Gs parked with OpNet become ready when
// their packet event fires and are handed out by Poll in arrival order.
type fakePoller struct {
	e       *engine
	ready   []sched.GID
	waiting int // Gs whose packet has not arrived yet
}

// Poll returns ready Gs. A blocking poll that finds none cannot advance
// virtual time from inside the Sched; instead the calling core is marked
// as blocked in the poller, so the next packet interrupt goes to it.
func (p *fakePoller) Poll(block bool, buf []sched.GID) int {
	n := copy(buf, p.ready)
	p.ready = p.ready[n:]
	if n == 0 && block {
		p.e.cores[p.e.cur].pollBlock = true
	}
	return n
}

// Waiters reports whether any G is parked on the network or ready in it.
func (p *fakePoller) Waiters() bool { return p.waiting > 0 || len(p.ready) > 0 }

// PolicyNames lists the policies the simulator can run (the Sched's).
func PolicyNames() []string { return sched.PolicyNames() }

// LookupPolicies resolves a -policy flag: a name or "all".
func LookupPolicies(name string) ([]string, error) {
	if name == "all" {
		return PolicyNames(), nil
	}
	if sched.PolicyByName(name) == nil || name == "" {
		return nil, fmt.Errorf("unknown policy %q (have: all, %s)", name, strings.Join(PolicyNames(), ", "))
	}
	return []string{name}, nil
}

// The engine is a full machine for the Sched.
var (
	_ sched.Platform      = (*engine)(nil)
	_ sched.TimerPlatform = (*engine)(nil)
	_ sched.Poller        = (*fakePoller)(nil)
)
