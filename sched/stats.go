// Scheduler event counters, readable without locks.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "sync/atomic"

// Stat names one counter. Every P has one set (P.stats) and the totals are
// their sum, so a counter is only ever written by its own P (no cache-line
// ping-pong) and read by anyone.
type Stat int

const (
	// StatCtxSwitch: execute ran a G. Rising with no useful work done
	// means Gs are yielding to each other in a tight loop.
	StatCtxSwitch Stat = iota
	// StatRunnextHit: the picked G came from runnext (inherits the slice).
	// High in ping-pong workloads; that is the point of runnext.
	StatRunnextHit
	// StatLRQHit: the picked G came from the P's local run queue.
	StatLRQHit
	// StatGRQTake: the P took Gs from the global run queue.
	StatGRQTake
	// StatGRQTick: of those, takes forced by the every-61st-schedtick
	// fairness check.
	StatGRQTick
	// StatSteal: a successful steal (one per victim raid).
	StatSteal
	// StatStolenG: Gs moved by steals. Rising fast with StatSteal flat
	// means few large raids; the reverse means work trickles in.
	StatStolenG
	// StatPreempt: Preempt took the running G off the P (slice used up).
	StatPreempt
	// StatSpinStart: this P's M started spinning. Rising while the
	// machine is idle means wakeups with no work (wakep too eager).
	StatSpinStart
	// StatWakep: wakep woke an idle P's M (Platform.WakeM).
	StatWakep
	// StatIdle: the P found nothing and went idle (Platform.ParkM).
	StatIdle
	// StatPoll: non-blocking Poller.Poll calls.
	StatPoll
	// StatPollG: Gs made runnable by the poller.
	StatPollG
	// StatSpawn: Gs created (NewProc) on this P.
	StatSpawn
	// StatReady: Gs readied (Ready) by this P.
	StatReady
	// StatPark: Gs parked (Park) on this P.
	StatPark
	// StatYield: Gosched + GoYield calls on this P.
	StatYield
	// StatGRQOverflow: runqputslow moved half the LRQ to the GRQ.
	StatGRQOverflow
	// StatExit: Gs that exited on this P.
	StatExit
	// StatWakePreempt: of the preemptions (StatPreempt), those a G waiting
	// in runnext asked for before the slice ended (gmp's wake-up
	// preemption, policy_gmp.go Tick).
	StatWakePreempt

	NumStats
)

var statNames = [NumStats]string{
	StatCtxSwitch:   "ctxswitch",
	StatRunnextHit:  "runnext",
	StatLRQHit:      "lrq",
	StatGRQTake:     "grq",
	StatGRQTick:     "grq61",
	StatSteal:       "steals",
	StatStolenG:     "stolen",
	StatPreempt:     "preempt",
	StatSpinStart:   "spin",
	StatWakep:       "wakep",
	StatIdle:        "idle",
	StatPoll:        "poll",
	StatPollG:       "pollg",
	StatSpawn:       "spawn",
	StatReady:       "ready",
	StatPark:        "park",
	StatYield:       "yield",
	StatGRQOverflow: "overflow",
	StatExit:        "exit",
	StatWakePreempt: "wakepreempt",
}

// String is the short column name used in tables and stats dumps.
func (s Stat) String() string {
	if s < 0 || s >= NumStats {
		return "?"
	}
	return statNames[s]
}

// Stats is one set of counters. The zero value is ready (static allocation).
type Stats [NumStats]atomic.Uint64

// add bumps counter st by n. Hot path: one atomic add, no allocation.
func (c *Stats) add(st Stat, n uint64) { c[st].Add(n) }

// Get reads counter st.
func (c *Stats) Get(st Stat) uint64 { return c[st].Load() }
